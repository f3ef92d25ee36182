//! The files of a sweep's part and `sweep merge`.
//!
//! A part is the rows of one shard (`part-i-of-n`) or of a whole sweep (`summary`), in three
//! files that only its own process writes:
//!
//! * `<stem>.csv` — a header, then one row per finished run, appended and flushed as runs
//!   finish (nearly in run order; sort by `run`), so an interrupted part keeps every
//!   finished row. The process holds an exclusive lock on it while it writes (where the
//!   file system has locks), so a shard launched twice is refused.
//! * `<stem>.parquet` — the same rows, written a row group of [`crate::table::ROW_GROUP`]
//!   rows at a time into a uniquely named temporary file that is renamed into place when the
//!   part closes (also on Ctrl-C / SIGTERM); its key-value metadata holds the fingerprint.
//! * `<stem>.json` — the sidecar ([`PartMeta`]): the fingerprint, the sweep's run count, the
//!   shard, the columns and whether every run of the part has a row; written atomically
//!   (a uniquely named temporary file and a rename) when the part opens and when it closes.
//!
//! `--resume` reopens a part of the same fingerprint, keeps its whole rows (a row cut by a
//! killed writer is dropped) and runs the rest. `merge` reads every `part-*-of-*.csv` with
//! its sidecar, refuses parts of different fingerprints (naming the files), and writes
//! `summary.{csv,parquet,json}` in run order when every run has a row.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};
use crate::shard::Shard;
use crate::table::{
    csv_line, parquet_metadata, temp_beside, write_atomic, ColumnKind, CsvRecords, ParquetStream,
    Record, Table,
};
use contour_scenario::sweep::Sweep;

/// Version of the sidecar's layout.
pub const FORMAT: u32 = 1;

/// Parquet key-value metadata key of the fingerprint.
pub const FINGERPRINT_KEY: &str = "contour.sweep.fingerprint";

/// The sidecar `<stem>.json` of a part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartMeta {
    /// Layout version ([`FORMAT`]).
    pub format: u32,
    /// The sweep's fingerprint ([`Sweep::fingerprint`]).
    pub fingerprint: String,
    /// Version of the contour that wrote the part.
    pub contour_version: String,
    /// Runs of the whole sweep.
    pub runs: usize,
    /// The shard, or `None` for a whole sweep (and a merged summary).
    pub shard: Option<Shard>,
    /// Column names.
    pub columns: Vec<String>,
    /// Parquet kind of each column.
    pub kinds: Vec<ColumnKind>,
    /// Whether every run of the part has a row.
    pub complete: bool,
    /// Rows written.
    pub rows: usize,
    /// Rows whose status is not `ok`.
    pub failed: usize,
}

impl PartMeta {
    /// The sidecar of `shard` of `sweep` (or of the whole sweep), before any row.
    pub fn new(sweep: &Sweep, shard: Option<Shard>) -> Self {
        Self {
            format: FORMAT,
            fingerprint: sweep.fingerprint().to_string(),
            contour_version: env!("CARGO_PKG_VERSION").to_string(),
            runs: sweep.len(),
            shard,
            columns: sweep.header(),
            kinds: sweep.kinds(),
            complete: false,
            rows: 0,
            failed: 0,
        }
    }

    /// The Parquet key-value metadata of the part.
    pub fn parquet_metadata(&self) -> Vec<(String, String)> {
        vec![
            (FINGERPRINT_KEY.into(), self.fingerprint.clone()),
            ("contour.sweep.runs".into(), self.runs.to_string()),
            (
                "contour.sweep.shard".into(),
                self.shard
                    .map_or_else(|| "all".into(), |s| format!("{}/{}", s.index, s.count)),
            ),
            ("contour.version".into(), self.contour_version.clone()),
        ]
    }

    fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| CliError::io(path, e))?;
        Ok(serde_json::from_str(&text)?)
    }

    fn write(&self, path: &Path) -> Result<()> {
        write_atomic(path, serde_json::to_string_pretty(self)?.as_bytes())
    }
}

/// The writer of one part: appends rows to the CSV (locked), streams them into the Parquet
/// file's row groups, and writes the sidecar.
pub struct PartWriter {
    dir: PathBuf,
    stem: String,
    meta: PartMeta,
    csv: BufWriter<File>,
    parquet: ParquetStream<BufWriter<File>>,
    parquet_tmp: tempfile::TempPath,
}

impl PartWriter {
    /// Opens the part `stem` of `dir` for the sweep of `meta`. Without `resume` the part
    /// starts empty; with it, the rows of an earlier run of the same sweep are kept (a cut
    /// last row is dropped) and their run indices returned. Another process writing the
    /// same part is [`CliError::PartBusy`]; a part of another sweep is
    /// [`CliError::ResumeMismatch`].
    pub fn open(
        dir: &Path,
        stem: &str,
        meta: PartMeta,
        resume: bool,
    ) -> Result<(Self, Vec<usize>)> {
        let csv_path = dir.join(format!("{stem}.csv"));
        let json_path = dir.join(format!("{stem}.json"));
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&csv_path)
            .map_err(|e| CliError::io(&csv_path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(CliError::PartBusy { path: csv_path })
            }
            // A file system without locks (some network volumes): the part is still this
            // shard's alone as long as one process runs each shard.
            Err(std::fs::TryLockError::Error(e)) => eprintln!(
                "warning: {}: cannot lock ({e}); make sure no other process runs this shard",
                csv_path.display()
            ),
        }
        // The lock is ours: temporary Parquet files of this part are leftovers of a killed run.
        remove_stale_temporaries(dir, &format!(".{stem}.parquet."));
        let parquet_path = dir.join(format!("{stem}.parquet"));
        let tmp = temp_beside(&parquet_path)?;
        let (tmp_file, parquet_tmp) = tmp.into_parts();
        let mut parquet = ParquetStream::new(
            BufWriter::new(tmp_file),
            &meta.columns,
            &meta.kinds,
            &meta.parquet_metadata(),
        )?;
        let len = file
            .metadata()
            .map_err(|e| CliError::io(&csv_path, e))?
            .len();
        let mut meta = meta;
        let mut finished = Vec::new();
        if resume && len > 0 {
            let old = PartMeta::read(&json_path)?;
            if old.fingerprint != meta.fingerprint {
                return Err(CliError::ResumeMismatch {
                    path: json_path,
                    found: old.fingerprint,
                    expected: meta.fingerprint,
                });
            }
            let mut records = CsvRecords::new(BufReader::new(&file));
            let mut keep = len;
            let mut first = true;
            let run_col = meta.columns.iter().position(|c| c == "run").unwrap_or(0);
            let status_col = meta.columns.iter().position(|c| c == "status");
            while let Some(rec) = records
                .next_record()
                .map_err(|e| CliError::io(&csv_path, e))?
            {
                let line = records.line;
                let bad = |reason: String| CliError::MalformedSummary {
                    path: csv_path.clone(),
                    line,
                    reason,
                };
                match rec {
                    Record::Truncated { start } => {
                        keep = start;
                        break;
                    }
                    Record::Complete { cells, .. } if first => {
                        first = false;
                        if cells != meta.columns {
                            return Err(bad("the header differs from the sweep's columns".into()));
                        }
                    }
                    Record::Complete { cells, .. } => {
                        if cells.len() != meta.columns.len() {
                            return Err(bad(format!(
                                "{} cells, the header has {}",
                                cells.len(),
                                meta.columns.len()
                            )));
                        }
                        let run: usize = cells[run_col].parse().map_err(|_| {
                            bad(format!("run `{}` is not an index", cells[run_col]))
                        })?;
                        if status_col.is_some_and(|j| cells[j] != "ok") {
                            meta.failed += 1;
                        }
                        meta.rows += 1;
                        finished.push(run);
                        parquet.push(cells)?;
                    }
                }
            }
            if first {
                keep = 0;
            }
            file.set_len(keep).map_err(|e| CliError::io(&csv_path, e))?;
        } else {
            file.set_len(0).map_err(|e| CliError::io(&csv_path, e))?;
        }
        file.seek(SeekFrom::End(0))
            .map_err(|e| CliError::io(&csv_path, e))?;
        let mut csv = BufWriter::new(file);
        if finished.is_empty() && meta.rows == 0 {
            // (Re)start: the header alone.
            csv.get_mut()
                .set_len(0)
                .map_err(|e| CliError::io(&csv_path, e))?;
            csv.write_all(csv_line(&meta.columns).as_bytes())
                .map_err(|e| CliError::io(&csv_path, e))?;
        }
        meta.complete = false;
        meta.write(&json_path)?;
        Ok((
            Self {
                dir: dir.to_path_buf(),
                stem: stem.to_string(),
                meta,
                csv,
                parquet,
                parquet_tmp,
            },
            finished,
        ))
    }

    /// Appends a row (cells under the part's columns; `ok` when its status is `ok`).
    pub fn append(&mut self, cells: Vec<String>, ok: bool) -> Result<()> {
        let path = self.dir.join(format!("{}.csv", self.stem));
        self.csv
            .write_all(csv_line(&cells).as_bytes())
            .map_err(|e| CliError::io(&path, e))?;
        self.meta.rows += 1;
        self.meta.failed += usize::from(!ok);
        self.parquet.push(cells)
    }

    /// Writes the buffered CSV rows to the file.
    pub fn flush(&mut self) -> Result<()> {
        let path = self.dir.join(format!("{}.csv", self.stem));
        self.csv.flush().map_err(|e| CliError::io(&path, e))
    }

    /// Closes the part: the CSV flushed and synced, the Parquet file completed and renamed
    /// into place, the sidecar written with `complete`. Returns the sidecar and the files.
    pub fn finish(mut self, complete: bool) -> Result<(PartMeta, Vec<PathBuf>)> {
        let csv_path = self.dir.join(format!("{}.csv", self.stem));
        let parquet_path = self.dir.join(format!("{}.parquet", self.stem));
        let json_path = self.dir.join(format!("{}.json", self.stem));
        self.flush()?;
        self.csv
            .get_ref()
            .sync_all()
            .map_err(|e| CliError::io(&csv_path, e))?;
        self.parquet.finish()?;
        self.parquet_tmp
            .persist(&parquet_path)
            .map_err(|e| CliError::io(&parquet_path, e.error))?;
        self.meta.complete = complete;
        self.meta.write(&json_path)?;
        Ok((self.meta, vec![csv_path, parquet_path, json_path]))
    }
}

/// Removes the files of `dir` whose name starts with `prefix` (best effort).
fn remove_stale_temporaries(dir: &Path, prefix: &str) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name();
            if name.to_string_lossy().starts_with(prefix) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// The result of `sweep merge`.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeReport {
    /// Parts read.
    pub parts: Vec<PathBuf>,
    /// Parts whose sidecar says they stopped before every run had a row.
    pub incomplete: Vec<PathBuf>,
    /// The sweep's fingerprint.
    pub fingerprint: String,
    /// Runs of the sweep.
    pub runs: usize,
    /// Runs with a row.
    pub rows: usize,
    /// Rows whose status is not `ok`.
    pub failed: usize,
    /// Runs without a row.
    pub missing: Vec<usize>,
    /// Runs with more than one row (kept: the first).
    pub duplicated: Vec<usize>,
    /// Duplicated runs whose rows differ (beyond the wall time).
    pub conflicting: Vec<usize>,
    /// The files written (`summary.csv`, `.parquet`, `.json`), or none when runs are missing
    /// or conflicting.
    pub written: Vec<PathBuf>,
}

/// The `part-i-of-n` numbers of a file name `part-i-of-n.csv`.
fn part_numbers(name: &str) -> Option<(usize, usize)> {
    let rest = name.strip_prefix("part-")?.strip_suffix(".csv")?;
    let (i, n) = rest.split_once("-of-")?;
    Some((i.parse().ok()?, n.parse().ok()?))
}

/// Sorted run indices as ranges (`0-3, 7, 9-12`), at most `cap` ranges, then `… (k more
/// ranges)`: a merge that misses a whole shard of a big sweep prints one line, not a
/// million numbers.
pub fn index_ranges(indices: &[usize], cap: usize) -> String {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &i in indices {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == i => *end = i,
            _ => ranges.push((i, i)),
        }
    }
    let shown: Vec<String> = ranges
        .iter()
        .take(cap)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    let mut text = shown.join(", ");
    if ranges.len() > cap {
        text.push_str(&format!(" … ({} more ranges)", ranges.len() - cap));
    }
    text
}

/// The complete parts (and merged summaries) of `dir` that belong to a sweep other than
/// `fingerprint`: each sidecar's path and fingerprint. A sidecar that cannot be read is
/// no sweep's complete part.
pub fn other_sweeps_complete_parts(dir: &Path, fingerprint: &str) -> Vec<(PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, String)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name == "summary.json"
                || name
                    .strip_suffix(".json")
                    .is_some_and(|stem| part_numbers(&format!("{stem}.csv")).is_some())
        })
        .filter_map(|p| {
            let meta = PartMeta::read(&p).ok()?;
            (meta.complete && meta.fingerprint != fingerprint).then_some((p, meta.fingerprint))
        })
        .collect();
    found.sort();
    found
}

/// Joins the `part-*-of-*.csv` of `out` into `summary.csv`, `summary.parquet` and
/// `summary.json` (rows in run order) when every run has a row and no duplicate conflicts;
/// reports missing and duplicated runs either way. Parts of different sweeps (fingerprints
/// of the sidecars or of the Parquet files) are refused with [`CliError::MixedSweeps`].
pub fn merge(out: &Path) -> Result<MergeReport> {
    let mut parts: Vec<((usize, usize), PathBuf)> = std::fs::read_dir(out)
        .map_err(|e| CliError::io(out, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let n = part_numbers(p.file_name()?.to_str()?)?;
            Some(((n.1, n.0), p))
        })
        .collect();
    parts.sort();
    let parts: Vec<PathBuf> = parts.into_iter().map(|(_, p)| p).collect();
    if parts.is_empty() {
        return Err(CliError::NoParts {
            dir: out.to_path_buf(),
        });
    }
    // Every part's identity, from its sidecar and its Parquet file.
    let mut metas = Vec::new();
    let mut groups: Vec<(String, Vec<PathBuf>)> = Vec::new();
    let mut note = |fp: &str, file: PathBuf| match groups.iter_mut().find(|(f, _)| f == fp) {
        Some((_, files)) => files.push(file),
        None => groups.push((fp.to_string(), vec![file])),
    };
    for p in &parts {
        let json = p.with_extension("json");
        let meta = match PartMeta::read(&json) {
            Ok(m) => m,
            Err(CliError::Io { .. }) => {
                note("(no sidecar)", json);
                continue;
            }
            Err(e) => return Err(e),
        };
        note(&meta.fingerprint, json);
        let parquet = p.with_extension("parquet");
        if parquet.exists() {
            let kv = parquet_metadata(&parquet)?;
            let fp = kv
                .iter()
                .find(|(k, _)| k == FINGERPRINT_KEY)
                .map_or("(none)", |(_, v)| v.as_str());
            if fp != meta.fingerprint {
                note(fp, parquet);
            }
        }
        metas.push(meta);
    }
    if groups.len() > 1 {
        let lines: Vec<String> = groups
            .iter()
            .map(|(fp, files)| {
                let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
                format!("  sweep {fp}: {}", names.join(", "))
            })
            .collect();
        return Err(CliError::MixedSweeps {
            groups: lines.join("\n"),
        });
    }
    let first = metas[0].clone();
    let runs = first.runs;
    let run_col = first.columns.iter().position(|c| c == "run").unwrap_or(0);
    let wall = first.columns.iter().position(|c| c == "wall_time_s");
    let status = first.columns.iter().position(|c| c == "status");
    // Where each run's row is: (part, byte offset, length) — the rows stay in their files.
    let mut rows: Vec<Option<Slot>> = vec![None; runs];
    let mut files: Vec<Positioned> = Vec::new();
    let (mut duplicated, mut conflicting, mut incomplete) = (Vec::new(), Vec::new(), Vec::new());
    for (k, (p, meta)) in parts.iter().zip(&metas).enumerate() {
        if !meta.complete {
            incomplete.push(p.clone());
        }
        let f = File::open(p).map_err(|e| CliError::io(p, e))?;
        // A second handle (its own offset) for reading rows back by position.
        files.push(Positioned {
            reader: BufReader::new(File::open(p).map_err(|e| CliError::io(p, e))?),
            pos: 0,
        });
        let mut records = CsvRecords::new(BufReader::new(f));
        let mut header = true;
        while let Some(rec) = records.next_record().map_err(|e| CliError::io(p, e))? {
            let line = records.line;
            let bad = |reason: String| CliError::MalformedSummary {
                path: p.clone(),
                line,
                reason,
            };
            let Record::Complete { cells, text } = rec else {
                // A row cut by a killed writer: its run counts as missing.
                break;
            };
            if header {
                header = false;
                if cells != first.columns {
                    return Err(bad("the header differs from the sidecar's columns".into()));
                }
                continue;
            }
            if cells.len() != first.columns.len() {
                return Err(bad(format!(
                    "{} cells, the header has {}",
                    cells.len(),
                    first.columns.len()
                )));
            }
            let run: usize = cells[run_col]
                .parse()
                .ok()
                .filter(|&r| r < runs)
                .ok_or_else(|| {
                    bad(format!(
                        "run `{}` is not a run of the sweep",
                        cells[run_col]
                    ))
                })?;
            match rows[run] {
                Some(prev) => {
                    duplicated.push(run);
                    let (_, c) = read_slot(&parts, &mut files, prev)?;
                    let same = c
                        .iter()
                        .zip(&cells)
                        .enumerate()
                        .all(|(j, (a, b))| Some(j) == wall || a == b);
                    if !same {
                        conflicting.push(run);
                    }
                }
                None => {
                    rows[run] = Some(Slot {
                        part: k,
                        start: records.start,
                        len: text.len(),
                    })
                }
            }
        }
    }
    duplicated.sort_unstable();
    conflicting.sort_unstable();
    let missing: Vec<usize> = (0..runs).filter(|&i| rows[i].is_none()).collect();
    let mut report = MergeReport {
        parts,
        incomplete,
        fingerprint: first.fingerprint.clone(),
        runs,
        rows: runs - missing.len(),
        failed: 0,
        missing,
        duplicated,
        conflicting,
        written: Vec::new(),
    };
    if report.missing.is_empty() && report.conflicting.is_empty() {
        (report.failed, report.written) =
            write_summary(out, &first, &report.parts, &mut files, &rows, status)?;
    }
    Ok(report)
}

/// Where a run's row is: part `part`, `len` bytes from byte `start`.
#[derive(Debug, Clone, Copy)]
struct Slot {
    part: usize,
    start: u64,
    len: usize,
}

/// A buffered reader of a part that knows its position (rows in file order are read without
/// a seek).
struct Positioned {
    reader: BufReader<File>,
    pos: u64,
}

/// The text and the cells of the row at `slot`.
fn read_slot(
    parts: &[PathBuf],
    files: &mut [Positioned],
    slot: Slot,
) -> Result<(String, Vec<String>)> {
    use std::io::Read;
    let path = &parts[slot.part];
    let f = &mut files[slot.part];
    let mut buf = vec![0; slot.len];
    if f.pos != slot.start {
        f.reader
            .seek(SeekFrom::Start(slot.start))
            .map_err(|e| CliError::io(path, e))?;
    }
    f.reader
        .read_exact(&mut buf)
        .map_err(|e| CliError::io(path, e))?;
    f.pos = slot.start + slot.len as u64;
    let text = String::from_utf8(buf).map_err(|_| CliError::MalformedSummary {
        path: path.clone(),
        line: 0,
        reason: format!("the row at byte {} is not UTF-8", slot.start),
    })?;
    match CsvRecords::new(text.as_bytes())
        .next_record()
        .map_err(|e| CliError::io(path, e))?
    {
        Some(Record::Complete { cells, .. }) => Ok((text, cells)),
        _ => Err(CliError::MalformedSummary {
            path: path.clone(),
            line: 0,
            reason: format!("the row at byte {} changed while merging", slot.start),
        }),
    }
}

/// Writes `summary.{csv,parquet,json}` from the rows in run order; returns the number of rows
/// whose status is not `ok` and the files written.
fn write_summary(
    out: &Path,
    meta: &PartMeta,
    parts: &[PathBuf],
    files: &mut [Positioned],
    rows: &[Option<Slot>],
    status: Option<usize>,
) -> Result<(usize, Vec<PathBuf>)> {
    let csv_path = out.join("summary.csv");
    let parquet_path = out.join("summary.parquet");
    let mut csv_tmp = temp_beside(&csv_path)?;
    let mut parquet_tmp = temp_beside(&parquet_path)?;
    let mut merged = meta.clone();
    merged.shard = None;
    merged.rows = 0;
    merged.failed = 0;
    {
        let mut csv = BufWriter::new(csv_tmp.as_file_mut());
        let mut parquet = ParquetStream::new(
            BufWriter::new(parquet_tmp.as_file_mut()),
            &meta.columns,
            &meta.kinds,
            &merged.parquet_metadata(),
        )?;
        let io = |e| CliError::io(&csv_path, e);
        csv.write_all(csv_line(&meta.columns).as_bytes())
            .map_err(io)?;
        for &slot in rows.iter().flatten() {
            let (text, cells) = read_slot(parts, files, slot)?;
            csv.write_all(text.as_bytes()).map_err(io)?;
            merged.rows += 1;
            merged.failed += usize::from(status.is_some_and(|j| cells[j] != "ok"));
            parquet.push(cells)?;
        }
        csv.flush().map_err(io)?;
        parquet.finish()?;
    }
    csv_tmp
        .persist(&csv_path)
        .map_err(|e| CliError::io(&csv_path, e.error))?;
    parquet_tmp
        .persist(&parquet_path)
        .map_err(|e| CliError::io(&parquet_path, e.error))?;
    merged.complete = true;
    let json_path = out.join("summary.json");
    merged.write(&json_path)?;
    Ok((merged.failed, vec![csv_path, parquet_path, json_path]))
}

/// Reads a whole summary or part CSV as a table (for tests and small sweeps).
pub fn read_table(path: &Path) -> Result<Table> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::io(path, e))?;
    Table::from_csv(path, &text)
}

#[cfg(test)]
mod tests {
    use super::index_ranges;

    #[test]
    fn missing_runs_print_as_capped_ranges() {
        assert_eq!(index_ranges(&[0, 1, 2, 3, 7, 9, 10], 10), "0-3, 7, 9-10");
        assert_eq!(index_ranges(&[], 10), "");
        let every_other: Vec<usize> = (0..100).step_by(2).collect();
        assert_eq!(index_ranges(&every_other, 3), "0, 2, 4 … (47 more ranges)");
    }
}
