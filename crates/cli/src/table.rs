//! The sweep summary as a table of text cells (one header, a row per run), written as CSV and
//! as Apache Parquet from the same cells, and read back from CSV by `sweep merge` — so a
//! merged summary is the same file as one written by a single process.
//!
//! Parquet column types: `run`, `seed`, `steps`, `f_evals` → UInt64; `status`, `error` →
//! Utf8; a swept column → Float64 when every non-empty cell is a number, else Utf8; every
//! other column → Float64. Empty cells are nulls.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;

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

    /// The Arrow record batch of the table (column types in the module documentation).
    pub fn record_batch(&self) -> Result<RecordBatch> {
        let mut fields = Vec::new();
        let mut arrays: Vec<ArrayRef> = Vec::new();
        for (j, name) in self.header.iter().enumerate() {
            let cells = self.rows.iter().map(|r| r[j].as_str());
            let numeric = self
                .rows
                .iter()
                .all(|r| r[j].is_empty() || r[j].parse::<f64>().is_ok());
            match name.as_str() {
                "run" | "seed" | "steps" | "f_evals" => {
                    let v: UInt64Array = cells.map(|c| c.parse::<u64>().ok()).collect();
                    fields.push(Field::new(name, DataType::UInt64, true));
                    arrays.push(Arc::new(v));
                }
                "status" | "error" => {
                    let v: StringArray = cells.map(|c| (!c.is_empty()).then_some(c)).collect();
                    fields.push(Field::new(name, DataType::Utf8, true));
                    arrays.push(Arc::new(v));
                }
                _ if numeric => {
                    let v: Float64Array = cells.map(|c| c.parse::<f64>().ok()).collect();
                    fields.push(Field::new(name, DataType::Float64, true));
                    arrays.push(Arc::new(v));
                }
                _ => {
                    let v: StringArray = cells.map(|c| (!c.is_empty()).then_some(c)).collect();
                    fields.push(Field::new(name, DataType::Utf8, true));
                    arrays.push(Arc::new(v));
                }
            }
        }
        Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?)
    }

    /// Writes the Parquet file (uncompressed) atomically.
    pub fn write_parquet(&self, path: &Path) -> Result<()> {
        let batch = self.record_batch()?;
        let mut buf = Vec::new();
        let mut w = ArrowWriter::try_new(&mut buf, batch.schema(), None)?;
        w.write(&batch)?;
        w.close()?;
        write_atomic(path, &buf)
    }
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
        let batch = t.record_batch().unwrap();
        assert_eq!(batch.num_rows(), 2);
        assert_eq!(batch.schema().field(2).data_type(), &DataType::Float64);
    }

    #[test]
    fn ragged_csv_is_an_error_with_its_line() {
        let e = Table::from_csv(Path::new("p.csv"), "a,b\n1,2\n3\n").unwrap_err();
        assert!(e.to_string().contains("p.csv:3"), "{e}");
    }
}
