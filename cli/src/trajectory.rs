//! The trajectory file of `simulate`: the selected columns ([`crate::simulate::columns`]) of
//! every recorded sample, as CSV (`trajectory.csv`, floats by `ryu`: the shortest text that
//! reads back to the same f64) or Parquet (`trajectory.parquet`: one DOUBLE column per
//! header, uncompressed, plain encoding, row groups of [`ROW_GROUP`] rows; pandas'
//! `read_parquet`, polars' `read_parquet` and pyarrow read it). Both are written whole or not
//! at all ([`crate::output::write_whole`]).
//!
//! `--format auto` (the default) writes CSV up to [`AUTO_CSV_VALUES`] values (rows ×
//! columns) and Parquet beyond: the default grid ([`crate::simulate::columns::default_dt_out`])
//! stays within CSV; a fine grid given with `--dt-out` on a large model gets the columnar file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::ValueEnum;
use mbsim::runtime::Recorder;
use parquet::basic::{Repetition, Type as Physical};
use parquet::data_type::DoubleType;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use crate::error::AppError;
use crate::simulate::columns::{Column, Source};

/// The trajectory's file format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// CSV up to 10⁶ values (rows × columns), Parquet beyond.
    #[default]
    Auto,
    /// `trajectory.csv`.
    Csv,
    /// `trajectory.parquet`.
    Parquet,
}

/// `--format auto` writes CSV up to this many values.
pub const AUTO_CSV_VALUES: usize = 1_000_000;

/// Rows per Parquet row group (one page per column and group).
pub const ROW_GROUP: usize = 8192;

impl Format {
    /// The format `self` resolves to for `rows` × `columns` values (never `Auto`).
    pub fn resolve(self, rows: usize, columns: usize) -> Format {
        match self {
            Format::Auto if rows.saturating_mul(columns) > AUTO_CSV_VALUES => Format::Parquet,
            Format::Auto | Format::Csv => Format::Csv,
            Format::Parquet => Format::Parquet,
        }
    }

    /// The file name of a resolved format.
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Parquet => "trajectory.parquet",
            Format::Auto | Format::Csv => "trajectory.csv",
        }
    }
}

/// The value of `source` at sample `row`.
fn value(rec: &Recorder, row: usize, source: Source) -> f64 {
    match source {
        Source::Time => rec.t[row],
        Source::Q(i) => rec.q[row][i],
        Source::V(i) => rec.v[row][i],
        Source::Vdot(i) => rec.vdot[row][i],
        Source::Lambda(i) => rec.lambda[row][i],
        Source::PhiNorm => rec.drift[row].position,
        Source::PhidotNorm => rec.drift[row].velocity,
    }
}

/// Write the trajectory into `dir` in `format` (resolved) and remove a file of the other
/// format left there by an earlier run, so that the directory holds one trajectory, the one
/// `summary.json` describes. Returns the file written.
pub fn write(
    dir: &Path,
    format: Format,
    rec: &Recorder,
    columns: &[Column],
) -> Result<PathBuf, AppError> {
    let format = format.resolve(rec.t.len(), columns.len());
    let path = dir.join(format.file_name());
    match format {
        Format::Parquet => write_parquet(&path, rec, columns)?,
        Format::Auto | Format::Csv => write_csv(&path, rec, columns)?,
    }
    let other = match format {
        Format::Parquet => Format::Csv,
        Format::Auto | Format::Csv => Format::Parquet,
    };
    let stale = dir.join(other.file_name());
    if stale.exists() {
        std::fs::remove_file(&stale).map_err(|source| AppError::Io {
            path: stale,
            source,
        })?;
    }
    Ok(path)
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> AppError + '_ {
    move |source| AppError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// `trajectory.csv`: the header through the csv crate (names are quoted if they need it), the
/// rows as `ryu` floats joined by commas.
pub fn write_csv(path: &Path, rec: &Recorder, columns: &[Column]) -> Result<(), AppError> {
    crate::output::write_whole(path, |out| {
        let mut header = csv::Writer::from_writer(Vec::new());
        let names = columns.iter().map(|c| c.name.as_str());
        header.write_record(names).map_err(|e| csv_err(path, e))?;
        let header = header
            .into_inner()
            .map_err(|e| io_err(path)(e.into_error()))?;
        out.write_all(&header).map_err(io_err(path))?;
        let mut line = Vec::with_capacity(24 * columns.len());
        let mut buffer = ryu::Buffer::new();
        for row in 0..rec.t.len() {
            line.clear();
            for (j, c) in columns.iter().enumerate() {
                if j > 0 {
                    line.push(b',');
                }
                line.extend_from_slice(float(&mut buffer, value(rec, row, c.source)));
            }
            line.push(b'\n');
            out.write_all(&line).map_err(io_err(path))?;
        }
        Ok(())
    })
}

/// The shortest round-trip text of `x` (`NaN`, `inf`, `-inf` for the non-finite values, as
/// Rust's own formatting writes them and Python's `float` reads them).
fn float(buffer: &mut ryu::Buffer, x: f64) -> &[u8] {
    if x.is_finite() {
        buffer.format_finite(x).as_bytes()
    } else if x.is_nan() {
        b"NaN"
    } else if x > 0.0 {
        b"inf"
    } else {
        b"-inf"
    }
}

fn csv_err(path: &Path, e: csv::Error) -> AppError {
    AppError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    }
}

fn parquet_err(path: &Path) -> impl Fn(parquet::errors::ParquetError) -> AppError + '_ {
    move |e| AppError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    }
}

/// `trajectory.parquet`: a flat schema of REQUIRED DOUBLE columns named by the header.
pub fn write_parquet(path: &Path, rec: &Recorder, columns: &[Column]) -> Result<(), AppError> {
    let fields = columns
        .iter()
        .map(|c| {
            Type::primitive_type_builder(&c.name, Physical::DOUBLE)
                .with_repetition(Repetition::REQUIRED)
                .build()
                .map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(parquet_err(path))?;
    let schema = Type::group_type_builder("trajectory")
        .with_fields(fields)
        .build()
        .map_err(parquet_err(path))?;
    let properties = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_max_row_group_size(ROW_GROUP)
        .set_created_by(format!("mbsim {}", env!("CARGO_PKG_VERSION")))
        .build();
    crate::output::write_whole(path, |out| {
        let err = parquet_err(path);
        let mut writer =
            SerializedFileWriter::new(out, Arc::new(schema), Arc::new(properties)).map_err(&err)?;
        let mut values = Vec::with_capacity(ROW_GROUP);
        for start in (0..rec.t.len()).step_by(ROW_GROUP) {
            let rows = start..rec.t.len().min(start + ROW_GROUP);
            let mut group = writer.next_row_group().map_err(&err)?;
            for c in columns {
                values.clear();
                values.extend(rows.clone().map(|row| value(rec, row, c.source)));
                let mut column = group
                    .next_column()
                    .map_err(&err)?
                    .ok_or_else(|| err(parquet::errors::ParquetError::General("schema".into())))?;
                column
                    .typed::<DoubleType>()
                    .write_batch(&values, None, None)
                    .map_err(&err)?;
                column.close().map_err(&err)?;
            }
            group.close().map_err(&err)?;
        }
        writer.close().map_err(&err)?;
        Ok(())
    })
}

/// The columns `names` of a `trajectory.parquet` (each in row order), read column by column:
/// what `check --at T --from DIR` needs of a run written as Parquet. The error says what is
/// wrong (not a Parquet file, a missing column, a column that is not DOUBLE).
pub fn read_parquet_columns(path: &Path, names: &[&str]) -> Result<Vec<Vec<f64>>, String> {
    use parquet::column::reader::ColumnReader;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let reader = SerializedFileReader::new(file).map_err(|e| format!("not a Parquet file: {e}"))?;
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let index = |name: &str| {
        (0..schema.num_columns())
            .find(|&i| schema.column(i).name() == name)
            .ok_or_else(|| format!("no column `{name}`"))
    };
    let indices: Vec<usize> = names.iter().map(|n| index(n)).collect::<Result<_, _>>()?;
    let mut columns = vec![Vec::new(); names.len()];
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g).map_err(|e| e.to_string())?;
        let rows = group.metadata().num_rows() as usize;
        for (k, &i) in indices.iter().enumerate() {
            let ColumnReader::DoubleColumnReader(mut column) =
                group.get_column_reader(i).map_err(|e| e.to_string())?
            else {
                return Err(format!("column `{}` is not DOUBLE", names[k]));
            };
            let start = columns[k].len();
            column
                .read_records(rows, None, None, &mut columns[k])
                .map_err(|e| e.to_string())?;
            if columns[k].len() - start != rows {
                return Err(format!("column `{}`: a short row group", names[k]));
            }
        }
    }
    Ok(columns)
}
