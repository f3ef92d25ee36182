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
            let cells: Vec<String> = row.iter().map(|c| csv_cell(c)).collect();
            s.push_str(&cells.join(","));
            s.push('\n');
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

    /// The Parquet file's bytes.
    pub fn to_parquet(&self) -> Result<Vec<u8>> {
        let kinds: Vec<ColumnKind> = (0..self.header.len())
            .map(|j| self.column_kind(j))
            .collect();
        let mut fields = Vec::new();
        for (name, kind) in self.header.iter().zip(&kinds) {
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
        let props = Arc::new(WriterProperties::builder().build());
        let mut buf = Vec::new();
        let mut writer = SerializedFileWriter::new(&mut buf, schema, props)?;
        let mut group = writer.next_row_group()?;
        let mut j = 0;
        while let Some(mut col) = group.next_column()? {
            let cells = || self.rows.iter().map(|r| r[j].as_str());
            let def: Vec<i16> = cells().map(|c| i16::from(!c.is_empty())).collect();
            let present = cells().filter(|c| !c.is_empty());
            match kinds[j] {
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
        writer.close()?;
        Ok(buf)
    }

    /// Writes the Parquet file atomically.
    pub fn write_parquet(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.to_parquet()?)
    }
}

/// The Parquet type of a summary column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// Unsigned 64-bit integer.
    UInt64,
    /// Double.
    Float64,
    /// UTF-8 string.
    Utf8,
}

/// Writes `bytes` to `path` through `path.tmp` and a rename, so a killed process leaves
/// either the whole file or none.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let mut f = std::fs::File::create(&tmp).map_err(|e| CliError::io(&tmp, e))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| CliError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| CliError::io(path, e))
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
        t.write_parquet(&path).unwrap();
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
