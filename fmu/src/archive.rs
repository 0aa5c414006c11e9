//! The .fmu archive: a zip (stored entries, fixed timestamps, so the same inputs give the
//! same bytes) holding modelDescription.xml and `binaries/linux64/<id>.so`, the C API
//! library `mbsim-fmi` built for the same model list. [`find_library`] locates that library
//! (`MBSIM_FMI_LIBRARY`, next to the running executable, or built with cargo in the source
//! tree this crate was compiled from).

use std::path::{Path, PathBuf};
use std::process::Command;

use mbsim::runtime::catalog::ModelEntry;

use crate::description::{description, identifier};

/// CRC-32 (IEEE) of `bytes`.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A zip archive of `files` (name, bytes), every entry stored.
pub fn zip(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    // 1980-01-01 00:00 in DOS time/date.
    let (time, date) = (0u16, (1u16 << 5) | 1);
    for (name, data) in files {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let size = data.len() as u32;
        let header = |sig: u32, central_dir: bool| {
            let mut h = Vec::new();
            h.extend(sig.to_le_bytes());
            if central_dir {
                h.extend(20u16.to_le_bytes()); // made by
            }
            h.extend(20u16.to_le_bytes()); // version needed
            h.extend(0u16.to_le_bytes()); // flags
            h.extend(0u16.to_le_bytes()); // stored
            h.extend(time.to_le_bytes());
            h.extend(date.to_le_bytes());
            h.extend(crc.to_le_bytes());
            h.extend(size.to_le_bytes());
            h.extend(size.to_le_bytes());
            h.extend((name.len() as u16).to_le_bytes());
            h.extend(0u16.to_le_bytes()); // extra
            if central_dir {
                h.extend(0u16.to_le_bytes()); // comment
                h.extend(0u16.to_le_bytes()); // disk
                h.extend(0u16.to_le_bytes()); // internal attributes
                h.extend(0u32.to_le_bytes()); // external attributes
                h.extend(offset.to_le_bytes());
            }
            h.extend(name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend(data);
        central.extend(header(0x0201_4b50, true));
    }
    let start = out.len() as u32;
    let count = files.len() as u16;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]); // disk numbers
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(start.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

/// The file name of the C API library on this platform.
pub fn library_file_name() -> &'static str {
    "libmbsim_fmi.so"
}

/// The compiled C API library serving the built-in catalog: `$MBSIM_FMI_LIBRARY`, else next
/// to the running executable (`target/<profile>/`), else `cargo build --release -p
/// mbsim-fmi` in the source tree this crate was built from.
pub fn find_library() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("MBSIM_FMI_LIBRARY") {
        return Ok(PathBuf::from(path));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        let candidate = dir.join(library_file_name());
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("the source tree is not where the build left it")?;
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--quiet", "-p", "mbsim-fmi"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo to build the FMU library: {e}"))?;
    if !status.success() {
        return Err(format!(
            "`cargo build --release -p mbsim-fmi` failed ({status})"
        ));
    }
    let built = root.join("target/release").join(library_file_name());
    if built.is_file() {
        Ok(built)
    } else {
        Err(format!("{} was not built", built.display()))
    }
}

/// Write the FMU of `entry` to `out`, with the C API library at `library`.
pub fn export(entry: &ModelEntry, library: &Path, out: &Path) -> Result<(), String> {
    let xml = description(entry);
    let lib = std::fs::read(library).map_err(|e| format!("{}: {e}", library.display()))?;
    let files = vec![
        ("modelDescription.xml".to_string(), xml.into_bytes()),
        (format!("binaries/linux64/{}.so", identifier(entry)), lib),
    ];
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(out, zip(&files)).map_err(|e| format!("{}: {e}", out.display()))
}
