//! The sweep summary as a table of text cells (one header, a row per run), written as CSV and
//! as Apache Parquet from the same cells, and read back from CSV by `sweep merge` — so a
//! merged summary is the same file as one written by a single process.
//!
//! Parquet columns (all optional, one row group, uncompressed; written with parquet's
//! column writers, without arrow, which would triple the build time of the dependencies):
//! `run`, `seed`, `steps`, `f_evals` → INT64 as unsigned 64-bit integers (pyarrow: uint64);
//! `status`, `error` → strings; a column whose every non-empty cell is a number → DOUBLE,
//! else strings. Empty cells are nulls.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use crate::error::{CliError, Result};

/// A table of text cells.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Rows (each as long as `header`).
    pub rows: Vec<Vec<String>>,
}

/// Quotes a CSV cell when it holds a comma, a quote or a line break (RFC 4180).
fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One CSV line (cells quoted where needed, a line break at the end).
pub fn csv_line(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
    let mut s = cells.join(",");
    s.push('\n');
    s
}

/// Splits one CSV record starting at `text` into cells; returns the cells and the rest.
fn csv_record(text: &str) -> Option<(Vec<String>, &str)> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = text.char_indices().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some((i, c)) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek().is_some_and(|&(_, d)| d == '"') {
                    chars.next();
                    cell.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cell.push(c);
            }
            continue;
        }
        match c {
            '"' if at_start => {
                quoted = true;
                at_start = false;
            }
            ',' => {
                cells.push(std::mem::take(&mut cell));
                at_start = true;
            }
            '\n' => {
                cells.push(std::mem::take(&mut cell));
                return Some((cells, &text[i + 1..]));
            }
            '\r' => {}
            _ => {
                cell.push(c);
                at_start = false;
            }
        }
    }
    if quoted {
        return None;
    }
    cells.push(cell);
    Some((cells, ""))
}

impl Table {
    /// Index of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The CSV text (header line, then a line per row).
    pub fn to_csv(&self) -> String {
        let mut s = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            s.push_str(&csv_line(row));
        }
        s
    }

    /// Parses CSV written by [`Table::to_csv`].
    pub fn from_csv(path: &Path, text: &str) -> Result<Self> {
        let bad = |line: usize, reason: String| CliError::MalformedSummary {
            path: path.to_path_buf(),
            line,
            reason,
        };
        let mut rest = text;
        let mut table = Table::default();
        let mut line = 0;
        while !rest.is_empty() {
            line += 1;
            let (cells, r) =
                csv_record(rest).ok_or_else(|| bad(line, "unterminated quote".into()))?;
            rest = r;
            if line == 1 {
                table.header = cells;
            } else if cells.len() != table.header.len() {
                return Err(bad(
                    line,
                    format!(
                        "{} cells, the header has {}",
                        cells.len(),
                        table.header.len()
                    ),
                ));
            } else {
                table.rows.push(cells);
            }
        }
        if table.header.is_empty() {
            return Err(bad(1, "no header".into()));
        }
        Ok(table)
    }

    /// Writes the CSV file atomically (a temporary file renamed into place).
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        write_atomic(path, self.to_csv().as_bytes())
    }

    /// The Parquet column kind of column `j` (see the module documentation).
    pub fn column_kind(&self, j: usize) -> ColumnKind {
        match self.header[j].as_str() {
            "run" | "seed" | "steps" | "f_evals" => ColumnKind::UInt64,
            "status" | "error" => ColumnKind::Utf8,
            _ if self
                .rows
                .iter()
                .all(|r| r[j].is_empty() || r[j].parse::<f64>().is_ok()) =>
            {
                ColumnKind::Float64
            }
            _ => ColumnKind::Utf8,
        }
    }

    /// The Parquet file's bytes (one row group per [`ROW_GROUP`] rows, `metadata` as the
    /// file's key-value metadata).
    pub fn to_parquet(&self, metadata: &[(String, String)]) -> Result<Vec<u8>> {
        let kinds: Vec<ColumnKind> = (0..self.header.len())
            .map(|j| self.column_kind(j))
            .collect();
        self.to_parquet_with(&kinds, metadata)
    }

    /// The Parquet file's bytes with the given column kinds.
    pub fn to_parquet_with(
        &self,
        kinds: &[ColumnKind],
        metadata: &[(String, String)],
    ) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        let mut w = ParquetStream::new(&mut buf, &self.header, kinds, metadata)?;
        for row in &self.rows {
            w.push(row.clone())?;
        }
        w.finish()?;
        Ok(buf)
    }

    /// Writes the Parquet file atomically.
    pub fn write_parquet(&self, path: &Path, metadata: &[(String, String)]) -> Result<()> {
        write_atomic(path, &self.to_parquet(metadata)?)
    }
}

/// Rows per Parquet row group of a streamed file: a group is written (and its memory freed)
/// every `ROW_GROUP` rows.
pub const ROW_GROUP: usize = 4096;

/// A Parquet file written a row group at a time: rows are buffered as text cells and a
/// group of [`ROW_GROUP`] rows is encoded and written as soon as it is full, so memory stays
/// bounded by one group whatever the number of rows.
pub struct ParquetStream<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    kinds: Vec<ColumnKind>,
    rows: Vec<Vec<String>>,
}

impl<W: Write + Send> ParquetStream<W> {
    /// A file with columns `header` of types `kinds` and the key-value `metadata`.
    pub fn new(
        out: W,
        header: &[String],
        kinds: &[ColumnKind],
        metadata: &[(String, String)],
    ) -> Result<Self> {
        let mut fields = Vec::new();
        for (name, kind) in header.iter().zip(kinds) {
            let (physical, logical) = match kind {
                ColumnKind::UInt64 => (
                    Physical::INT64,
                    Some(LogicalType::Integer {
                        bit_width: 64,
                        is_signed: false,
                    }),
                ),
                ColumnKind::Float64 => (Physical::DOUBLE, None),
                ColumnKind::Utf8 => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            };
            fields.push(Arc::new(
                Type::primitive_type_builder(name, physical)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_logical_type(logical)
                    .build()?,
            ));
        }
        let schema = Arc::new(
            Type::group_type_builder("summary")
                .with_fields(fields)
                .build()?,
        );
        let kv: Vec<KeyValue> = metadata
            .iter()
            .map(|(k, v)| KeyValue::new(k.clone(), v.clone()))
            .collect();
        let props = Arc::new(
            WriterProperties::builder()
                .set_key_value_metadata((!kv.is_empty()).then_some(kv))
                .build(),
        );
        Ok(Self {
            writer: SerializedFileWriter::new(out, schema, props)?,
            kinds: kinds.to_vec(),
            rows: Vec::new(),
        })
    }

    /// Adds a row (cells in header order); writes a row group when [`ROW_GROUP`] are buffered.
    pub fn push(&mut self, row: Vec<String>) -> Result<()> {
        self.rows.push(row);
        if self.rows.len() >= ROW_GROUP {
            self.write_group()?;
        }
        Ok(())
    }

    /// Encodes and writes the buffered rows as one row group.
    fn write_group(&mut self) -> Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(&mut self.rows);
        let mut group = self.writer.next_row_group()?;
        let mut j = 0;
        while let Some(mut col) = group.next_column()? {
            let cells = || rows.iter().map(|r| r.get(j).map_or("", String::as_str));
            let def: Vec<i16> = cells().map(|c| i16::from(!c.is_empty())).collect();
            let present = cells().filter(|c| !c.is_empty());
            match self.kinds.get(j).copied().unwrap_or(ColumnKind::Utf8) {
                ColumnKind::UInt64 => {
                    // Unsigned 64-bit values in INT64's bits (the Parquet convention).
                    let v: Vec<i64> = present
                        .map(|c| c.parse::<u64>().map_or(0, |x| x as i64))
                        .collect();
                    col.typed::<Int64Type>().write_batch(&v, Some(&def), None)?;
                }
                ColumnKind::Float64 => {
                    let v: Vec<f64> = present.map(|c| c.parse().unwrap_or(f64::NAN)).collect();
                    col.typed::<DoubleType>()
                        .write_batch(&v, Some(&def), None)?;
                }
                ColumnKind::Utf8 => {
                    let v: Vec<ByteArray> = present.map(ByteArray::from).collect();
                    col.typed::<ByteArrayType>()
                        .write_batch(&v, Some(&def), None)?;
                }
            }
            col.close()?;
            j += 1;
        }
        group.close()?;
        Ok(())
    }

    /// Writes the last row group and the footer.
    pub fn finish(mut self) -> Result<()> {
        self.write_group()?;
        self.writer.close()?;
        Ok(())
    }
}

/// The key-value metadata of the Parquet file at `path`.
pub fn parquet_metadata(path: &Path) -> Result<Vec<(String, String)>> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let f = std::fs::File::open(path).map_err(|e| CliError::io(path, e))?;
    let reader = SerializedFileReader::new(f)?;
    Ok(reader
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .map(|e| (e.key.clone(), e.value.clone().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default())
}

pub use contour_scenario::sweep::ColumnKind;

/// A uniquely named temporary file beside `path` (`.<name>.<random>.tmp`, created with
/// `O_EXCL`), so that processes writing the same directory never share a temporary name.
pub fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp");
    // Readable like any output file (tempfile's default is 0600); the umask still applies.
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    b.tempfile_in(dir).map_err(|e| CliError::io(dir, e))
}

/// Writes `bytes` to `path` through a uniquely named temporary file ([`temp_beside`]) and a
/// rename, so a killed process leaves either the whole file or none, and concurrent writers
/// of one directory never touch each other's temporary files.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = temp_beside(path)?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| CliError::io(tmp.path(), e))?;
    tmp.persist(path).map_err(|e| CliError::io(path, e.error))?;
    Ok(())
}

/// One record read by [`CsvRecords`].
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A whole record: its cells and its text (with the line break).
    Complete {
        /// The cells.
        cells: Vec<String>,
        /// The record's text as in the file.
        text: String,
    },
    /// The file ends inside a record (a writer killed mid-line): the bytes of the whole
    /// records before it.
    Truncated {
        /// Byte offset where the unfinished record starts.
        start: u64,
    },
}

/// CSV records read one at a time from a buffered reader (quoted cells may span lines), so a
/// file of any size is read in constant memory.
pub struct CsvRecords<R> {
    reader: R,
    offset: u64,
    /// 1-based line of the last record returned.
    pub line: usize,
    /// Byte offset of the last record returned.
    pub start: u64,
}

impl<R: std::io::BufRead> CsvRecords<R> {
    /// Records of `reader`.
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            offset: 0,
            line: 0,
            start: 0,
        }
    }

    /// The next record, `None` at the end of the input.
    pub fn next_record(&mut self) -> std::io::Result<Option<Record>> {
        let start = self.offset;
        self.start = start;
        let mut text = String::new();
        loop {
            let n = self.reader.read_line(&mut text)?;
            if n == 0 {
                break;
            }
            self.line += 1;
            // RFC 4180 doubles quotes inside quoted cells: an even count closes every cell.
            if text.ends_with('\n') && text.matches('"').count().is_multiple_of(2) {
                break;
            }
        }
        self.offset += text.len() as u64;
        if text.is_empty() {
            return Ok(None);
        }
        if !text.ends_with('\n') {
            return Ok(Some(Record::Truncated { start }));
        }
        match csv_record(&text) {
            Some((cells, _)) => Ok(Some(Record::Complete { cells, text })),
            None => Ok(Some(Record::Truncated { start })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trips_quotes_commas_and_line_breaks() {
        let t = Table {
            header: vec!["run".into(), "error".into(), "x".into()],
            rows: vec![
                vec!["0".into(), "".into(), "0.1".into()],
                vec!["1".into(), "bad \"q\", at t = 1\nnext".into(), "".into()],
            ],
        };
        let back = Table::from_csv(Path::new("t.csv"), &t.to_csv()).unwrap();
        assert_eq!(back, t);
        // Streamed: the same records, then a record cut by a killed writer.
        let text = format!("{}2,\"cut", t.to_csv());
        let mut r = CsvRecords::new(std::io::Cursor::new(text.as_bytes()));
        let mut cells = Vec::new();
        let mut truncated = None;
        while let Some(rec) = r.next_record().unwrap() {
            match rec {
                Record::Complete { cells: c, .. } => cells.push(c),
                Record::Truncated { start } => truncated = Some(start),
            }
        }
        assert_eq!(cells[0], t.header);
        assert_eq!(&cells[1..], &t.rows[..]);
        assert_eq!(truncated, Some(t.to_csv().len() as u64));
        assert_eq!(t.column_kind(0), ColumnKind::UInt64);
        assert_eq!(t.column_kind(1), ColumnKind::Utf8);
        assert_eq!(t.column_kind(2), ColumnKind::Float64);
    }

    #[test]
    fn parquet_reads_back_with_types_and_nulls() {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        use parquet::record::Field;
        let t = Table {
            header: vec!["run".into(), "x".into(), "error".into()],
            rows: vec![
                vec!["0".into(), "0.25".into(), "".into()],
                vec!["18446744073709551615".into(), "".into(), "bad".into()],
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        t.write_parquet(&path, &[("k".into(), "v".into())]).unwrap();
        assert_eq!(
            parquet_metadata(&path).unwrap(),
            vec![("k".to_string(), "v".to_string())]
        );
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        assert_eq!(reader.metadata().file_metadata().num_rows(), 2);
        let rows: Vec<_> = reader
            .get_row_iter(None)
            .unwrap()
            .map(|r| r.unwrap().into_columns())
            .collect();
        assert_eq!(rows[0][0].1, Field::ULong(0));
        assert_eq!(rows[0][1].1, Field::Double(0.25));
        assert_eq!(rows[0][2].1, Field::Null);
        assert_eq!(rows[1][0].1, Field::ULong(u64::MAX));
        assert_eq!(rows[1][1].1, Field::Null);
        assert_eq!(rows[1][2].1, Field::Str("bad".into()));
    }

    #[test]
    fn ragged_csv_is_an_error_with_its_line() {
        let e = Table::from_csv(Path::new("p.csv"), "a,b\n1,2\n3\n").unwrap_err();
        assert!(e.to_string().contains("p.csv:3"), "{e}");
    }
}
