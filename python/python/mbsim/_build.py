"""User models built into extension modules on demand.

``mbsim.build("my_model.rs")`` (or ``mbsim.build_source(text)``) writes a small crate around
the model file — the file as ``src/model.rs``, its entries, and the one line
``mbsim_python::python_module!(NAME, ENTRIES)`` — builds it with cargo and imports the result.
The module is cached under ``$MBSIM_CACHE`` (default ``~/.cache/mbsim``) by a hash of the
model text, the package version, the Rust sources' location and the installed extension, so
the second call with the same text imports it without running cargo.

The file is Rust: ``use mbsim::prelude::*;`` and one or more ``#[model(...)]`` structs. It may
define ``pub static ENTRIES: [ModelEntry; N]`` itself (names, defaults, initial guesses — see
examples/user-model); otherwise every model struct becomes an entry named in kebab case
(``DoublePendulum`` → ``double-pendulum``) whose parameters come from the struct's
``Default`` impl (required then) and whose initial guess is zero (give ``q0``/``q`` to
``simulate``).

The Rust sources are the checkout this package was built from (found next to it), or
``$MBSIM_SOURCE``; the build shares that checkout's ``target/`` directory (its Cargo.lock is
copied), so the dependencies compiled for the package are reused.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .errors import ModelFileError, ToolchainError

_STRUCT = re.compile(
    r"#\[\s*(?:mbsim\s*::\s*)?model\s*\((?:.|\n)*?\bpub\s+struct\s+([A-Za-z_][A-Za-z0-9_]*)"
)


def source_root() -> Path:
    """The Rust workspace this package belongs to (``$MBSIM_SOURCE`` wins)."""
    env = os.environ.get("MBSIM_SOURCE")
    candidates = [Path(env)] if env else list(Path(__file__).resolve().parents)
    for root in candidates:
        if (root / "python" / "Cargo.toml").is_file() and (root / "mbsim" / "Cargo.toml").is_file():
            return root
    raise ToolchainError(
        "cannot find the mbsim Rust sources to build a user model against: set MBSIM_SOURCE "
        "to the checkout (the directory with mbsim/ and python/)"
    )


def cargo() -> str:
    """The cargo executable, or a ToolchainError that says how to get one."""
    found = shutil.which("cargo") or _home_cargo()
    if not found:
        raise ToolchainError(
            "no Rust toolchain found: building a model file needs `cargo` on PATH. Install it "
            "with rustup (https://rustup.rs: `curl --proto '=https' --tlsv1.2 -sSf "
            "https://sh.rustup.rs | sh`), then open a new shell."
        )
    return found


def _home_cargo() -> str | None:
    path = Path.home() / ".cargo" / "bin" / "cargo"
    return str(path) if path.is_file() else None


def cache_dir() -> Path:
    return Path(os.environ.get("MBSIM_CACHE") or Path.home() / ".cache" / "mbsim")


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _entries(text: str, label: str) -> str:
    """The ENTRIES of a file without its own: one per model struct."""
    names = _STRUCT.findall(text)
    if not names:
        raise ModelFileError(f"{label}: no `#[model(...)] pub struct` found")
    items = []
    for name in names:
        items.append(
            f"""    ModelEntry {{
        name: "{_kebab(name)}",
        title: "{name} ({label.replace('"', "'")})",
        source: "a model file built by mbsim.build",
        build: || Box::new(<super::model::{name} as Default>::default()),
        initial: |sys| (vec![0.0; sys.dims().n], vec![0.0; sys.dims().n]),
        t_end: 1.0,
        dt_out: 0.01,
        rtol: 1e-8,
        kernels: "",
    }},"""
        )
    body = "\n".join(items)
    return (
        "use mbsim::runtime::catalog::ModelEntry;\n"
        f"pub static ENTRIES: [ModelEntry; {len(names)}] = [\n{body}\n];\n"
    )


def _key(text: str, root: Path) -> str:
    """Hash of the text, the package version, the sources' location and the installed
    extension (size and time: a rebuilt package means rebuilt Rust sources, so modules
    built against the old ones are not reused)."""
    from . import _native

    version = _package_version()
    st = os.stat(_native.__file__)
    build = f"{st.st_size}:{st.st_mtime_ns}"
    h = hashlib.sha256()
    for part in (text, version, str(root), build):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def _package_version() -> str:
    try:
        from importlib.metadata import version

        return version("mbsim")
    except Exception:  # an in-place build without metadata
        return "dev"


def _write_crate(
    crate: Path, module: str, text: str, label: str, root: Path, fmu: bool = False
) -> None:
    (crate / "src").mkdir(parents=True, exist_ok=True)
    own = re.search(r"\bstatic\s+ENTRIES\b", text) is not None
    entries = "pub use model::ENTRIES;\n" if own else f"mod entries {{\n{_entries(text, label)}}}\npub use entries::ENTRIES;\n"
    if fmu:
        binding = 'mbsim-fmi = {{ path = "{}", default-features = false }}'.format((root / "fmu" / "capi").as_posix())
        export = "mbsim_fmi::fmi_entries!(ENTRIES);\n"
    else:
        binding = 'mbsim-python = {{ path = "{}", default-features = false }}'.format((root / "python").as_posix())
        export = f"mbsim_python::python_module!({module}, ENTRIES);\n"
    (crate / "Cargo.toml").write_text(
        f"""[package]
name = "{module}"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
crate-type = ["cdylib"]
path = "src/lib.rs"

[dependencies]
mbsim = {{ path = "{(root / 'mbsim').as_posix()}" }}
{binding}

[workspace]

# As the mbsim workspace builds its proc-macro (the symbolic pipeline): the same settings, so
# the compiled macro and its dependencies in the shared target directory are reused.
[profile.dev.build-override]
opt-level = 3
[profile.release.build-override]
opt-level = 3
"""
    )
    lock = root / "Cargo.lock"
    if lock.is_file():
        shutil.copyfile(lock, crate / "Cargo.lock")
    (crate / "src" / "model.rs").write_text(text)
    (crate / "src" / "lib.rs").write_text(
        "//! Generated by mbsim.build: a model file as an extension module.\n"
        "#![allow(missing_docs, dead_code, unused_imports)]\n"
        "pub mod model;\n"
        f"{entries}"
        f"{export}"
    )


def _located(stderr: str, label: str) -> str:
    """The compiler's errors with src/model.rs replaced by the user's file name."""
    lines = [
        line.replace("src/model.rs", label)
        for line in stderr.splitlines()
        if ": error" in line or line.startswith("error")
    ]
    lines = [l for l in lines if "could not compile" not in l and "aborting due to" not in l]
    return "\n".join(lines) if lines else stderr.strip()[-4000:]


def _import(module: str, path: Path) -> Any:
    if module in sys.modules:
        return sys.modules[module]
    loader = importlib.machinery.ExtensionFileLoader(module, str(path))
    spec = importlib.util.spec_from_file_location(module, str(path), loader=loader)
    if spec is None:
        raise ModelFileError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    sys.modules[module] = mod
    return mod


def _cargo_build(
    text: str, label: str, module: str, release: bool, fmu: bool, quiet: bool = True
) -> Path:
    """Write the crate of ``text`` and build it; the built library's path."""
    root = source_root()
    exe = cargo()
    crate = cache_dir() / "crates" / module
    _write_crate(crate, module, text, label, root, fmu=fmu)
    target = Path(os.environ.get("MBSIM_TARGET_DIR") or root / "target")
    cmd = [exe, "build", "--lib", "--message-format=short", "--manifest-path", str(crate / "Cargo.toml")]
    if release:
        cmd.append("--release")
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), PYO3_PYTHON=sys.executable)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ModelFileError(_located(proc.stderr, label))
    if not quiet:
        sys.stderr.write(proc.stderr)
    return target / ("release" if release else "debug") / f"lib{module}.so"


def _cached(text: str, release: bool, kind: str) -> tuple[str, Path]:
    key = _key(text + ("release" if release else "debug") + kind, source_root())
    module = f"mbsim_{kind}_{key}"
    return module, cache_dir() / "modules" / f"{module}.abi3.so"


def _store(lib: Path, built: Path) -> None:
    built.parent.mkdir(parents=True, exist_ok=True)
    tmp = built.with_suffix(".tmp")
    shutil.copyfile(lib, tmp)
    os.replace(tmp, built)


def build_module(text: str, label: str, *, release: bool = True, quiet: bool = True) -> Any:
    """The extension module of model text ``text`` (``label`` names it in errors)."""
    module, built = _cached(text, release, "user")
    if not built.is_file():
        _store(_cargo_build(text, label, module, release, fmu=False, quiet=quiet), built)
    return _import(module, built)


def fmu_library(text: str, label: str, *, release: bool = True) -> Path:
    """The FMI 2.0 library (mbsim-fmi) of model text ``text``, cached like the modules."""
    module, built = _cached(text, release, "fmi")
    if not built.is_file():
        _store(_cargo_build(text, label, module, release, fmu=True), built)
    return built


def build_file(path: str | os.PathLike[str], *, release: bool = True, quiet: bool = True) -> Any:
    from . import Library

    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise ModelFileError(f"{p}: {e}") from None
    lib = Library(build_module(text, str(p), release=release, quiet=quiet))
    lib._source = (text, str(p), release)
    return lib


def build_text(source: str, *, release: bool = True, quiet: bool = True) -> Any:
    from . import Library

    lib = Library(build_module(source, "<string>", release=release, quiet=quiet))
    lib._source = (source, "<string>", release)
    return lib


def export_fmu(module: Any, source: tuple[str, str, bool] | None, name: str, out: Path) -> Path:
    """The FMU of model ``name`` of a built module (its description from the module, its
    library mbsim-fmi built from the same text)."""
    import zipfile

    if source is None:
        raise ModelFileError(
            "export_fmu needs a Library built from a model file or string (mbsim.build)"
        )
    xml, identifier = module._fmu_description(name)
    library = fmu_library(source[0], source[1], release=source[2])
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("modelDescription.xml", xml)
        z.write(library, f"binaries/linux64/{identifier}.so")
    return out
