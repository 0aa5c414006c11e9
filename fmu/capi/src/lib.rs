//! The FMI 2.0 co-simulation C API (the shared library inside an mbsim .fmu).
//!
//! Every function is a thin shell: it turns the importer's raw pointers into Rust values,
//! calls [`slave::Slave`] (safe code), and reports failures through the
//! importer's logger with `fmi2Error`. A panic never crosses the C boundary: each call runs
//! inside `catch_unwind` and a panic becomes `fmi2Fatal`.
//!
//! The model is chosen at `fmi2Instantiate` by the GUID of the description (each model's
//! description has its own), among the entries of this library: the built-in catalog with
//! the `builtin` feature, else the entries named by the user's crate with [`fmi_entries!`].
//!
//! Why unsafe code here (the workspace forbids it elsewhere): the C ABI hands over raw
//! pointers and C strings, calls a variadic C logger, and the functions must be exported
//! unmangled. Each unsafe block states what it relies on (FMI 2.0's calling rules).

use std::ffi::{CStr, CString, c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

#[doc(hidden)]
pub use mbsim::runtime::catalog::ModelEntry;
// The co-simulation instance: safe code (the workspace's rule holds there).
#[forbid(unsafe_code)]
pub mod slave;

use slave::{Slave, Snapshot};

type Status = i32;
const OK: Status = 0;
const WARNING: Status = 1;
const DISCARD: Status = 2;
const ERROR: Status = 3;
const FATAL: Status = 4;

/// `fmi2CallbackLogger` (variadic: `printf`-style message).
type Logger = Option<
    unsafe extern "C" fn(*mut c_void, *const c_char, Status, *const c_char, *const c_char, ...),
>;

/// `fmi2CallbackFunctions`.
#[repr(C)]
pub struct CallbackFunctions {
    logger: Logger,
    allocate_memory: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    free_memory: Option<unsafe extern "C" fn(*mut c_void)>,
    step_finished: Option<unsafe extern "C" fn(*mut c_void, Status)>,
    component_environment: *mut c_void,
}

/// One instance.
struct Instance {
    slave: Slave,
    name: CString,
    logger: Logger,
    environment: *mut c_void,
    strings: Vec<CString>,
    last_status: Status,
}

#[cfg(feature = "builtin")]
fn entries() -> &'static [ModelEntry] {
    mbsim_models::catalog()
}

#[cfg(not(feature = "builtin"))]
unsafe extern "Rust" {
    /// Defined by the user's crate through [`fmi_entries!`].
    fn mbsim_fmi_entries() -> &'static [ModelEntry];
}

#[cfg(not(feature = "builtin"))]
fn entries() -> &'static [ModelEntry] {
    // SAFETY: the symbol is the safe function `fmi_entries!` defines in the final library.
    unsafe { mbsim_fmi_entries() }
}

/// Names the model entries of a user's FMU crate (a cdylib depending on `mbsim-fmi` without
/// its `builtin` feature): `mbsim_fmi::fmi_entries!(ENTRIES);`.
#[macro_export]
macro_rules! fmi_entries {
    ($entries:expr) => {
        #[unsafe(no_mangle)]
        pub fn mbsim_fmi_entries() -> &'static [$crate::ModelEntry] {
            &$entries
        }
    };
}

/// Send `message` to the importer's logger (if any).
fn log_to(logger: Logger, environment: *mut c_void, name: &CStr, status: Status, message: &str) {
    let Some(logger) = logger else { return };
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    let category = if status >= ERROR {
        c"logStatusError"
    } else {
        c"logAll"
    };
    // SAFETY: the logger is the importer's function of the FMI signature; every string
    // passed is a valid NUL-terminated C string that outlives the call, and the format
    // "%s" consumes exactly the one vararg given.
    unsafe {
        logger(
            environment,
            name.as_ptr(),
            status,
            category.as_ptr(),
            c"%s".as_ptr(),
            text.as_ptr(),
        )
    };
}

impl Instance {
    fn log(&self, status: Status, message: &str) {
        log_to(self.logger, self.environment, &self.name, status, message);
    }

    /// `result` as a status, logging an error.
    fn status(&mut self, result: Result<(), String>) -> Status {
        let status = match result {
            Ok(()) => OK,
            Err(message) => {
                self.log(ERROR, &message);
                ERROR
            }
        };
        self.last_status = status;
        status
    }
}

/// Run `f` on the instance `c`, mapping a panic to `fmi2Fatal`.
fn with(c: *mut c_void, f: impl FnOnce(&mut Instance) -> Status) -> Status {
    if c.is_null() {
        return ERROR;
    }
    // SAFETY: `c` is a pointer returned by `fmi2Instantiate` (a leaked Box<Instance>) and not
    // yet freed; FMI 2.0 forbids concurrent calls on one instance.
    let instance = unsafe { &mut *(c as *mut Instance) };
    catch_unwind(AssertUnwindSafe(|| f(instance))).unwrap_or(FATAL)
}

/// `n` elements at `ptr` as a slice (empty for n = 0, whatever the pointer).
///
/// # Safety
/// For n > 0, `ptr` points to n valid elements for the duration of the call.
unsafe fn slice<'a, T>(ptr: *const T, n: usize) -> &'a [T] {
    if n == 0 || ptr.is_null() {
        &[]
    } else {
        // SAFETY: the caller's guarantee.
        unsafe { std::slice::from_raw_parts(ptr, n) }
    }
}

/// `n` writable elements at `ptr`.
///
/// # Safety
/// For n > 0, `ptr` points to n writable elements for the duration of the call.
unsafe fn slice_mut<'a, T>(ptr: *mut T, n: usize) -> &'a mut [T] {
    if n == 0 || ptr.is_null() {
        &mut []
    } else {
        // SAFETY: the caller's guarantee.
        unsafe { std::slice::from_raw_parts_mut(ptr, n) }
    }
}

/// A C string as Rust text (empty for null).
///
/// # Safety
/// `ptr` is null or a valid NUL-terminated string.
unsafe fn text(ptr: *const c_char) -> String {
    if ptr.is_null() {
        String::new()
    } else {
        // SAFETY: the caller's guarantee.
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned()
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetTypesPlatform() -> *const c_char {
    c"default".as_ptr()
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetVersion() -> *const c_char {
    c"2.0".as_ptr()
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2SetDebugLogging(
    c: *mut c_void,
    _on: i32,
    _n: usize,
    _categories: *const *const c_char,
) -> Status {
    with(c, |_| OK)
}

/// # Safety
/// FMI 2.0: valid C strings (or null) and a valid callback struct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2Instantiate(
    instance_name: *const c_char,
    fmu_type: i32,
    guid: *const c_char,
    _resource_location: *const c_char,
    functions: *const CallbackFunctions,
    _visible: i32,
    _logging_on: i32,
) -> *mut c_void {
    // SAFETY: FMI 2.0 passes valid strings and callback functions.
    let (name, guid) = unsafe { (text(instance_name), text(guid)) };
    let (logger, environment) = if functions.is_null() {
        (None, std::ptr::null_mut())
    } else {
        // SAFETY: non-null, points to the importer's callback struct.
        let f = unsafe { &*functions };
        (f.logger, f.component_environment)
    };
    let made = catch_unwind(|| {
        mbsim_cli::registry::install(entries());
        let entry = entries()
            .iter()
            .find(|e| mbsim_fmu::description::guid_of(e) == guid);
        (fmu_type == 1).then_some(entry).flatten().map(Slave::new)
    });
    let name = CString::new(name).unwrap_or_default();
    let slave = match made {
        Ok(Some(slave)) => slave,
        Ok(None) | Err(_) => {
            let message = format!(
                "no co-simulation model with GUID {guid} in this library (fmuType {fmu_type}; only co-simulation, 1, is implemented)"
            );
            log_to(logger, environment, &name, ERROR, &message);
            return std::ptr::null_mut();
        }
    };
    let instance = Instance {
        slave,
        name,
        logger,
        environment,
        strings: Vec::new(),
        last_status: OK,
    };
    Box::into_raw(Box::new(instance)) as *mut c_void
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2FreeInstance(c: *mut c_void) {
    if !c.is_null() {
        // SAFETY: `c` came from Box::into_raw in fmi2Instantiate and is freed once (FMI 2.0).
        drop(unsafe { Box::from_raw(c as *mut Instance) });
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2SetupExperiment(
    c: *mut c_void,
    tolerance_defined: i32,
    tolerance: f64,
    start: f64,
    stop_defined: i32,
    stop: f64,
) -> Status {
    with(c, |i| {
        i.slave.setup(start, (stop_defined != 0).then_some(stop));
        let result = if tolerance_defined != 0 {
            i.slave.set_tolerance(tolerance)
        } else {
            Ok(())
        };
        i.status(result)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2EnterInitializationMode(c: *mut c_void) -> Status {
    with(c, |_| OK)
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2ExitInitializationMode(c: *mut c_void) -> Status {
    with(c, |i| {
        let r = i.slave.initialize();
        i.status(r)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2Terminate(c: *mut c_void) -> Status {
    with(c, |_| OK)
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2Reset(c: *mut c_void) -> Status {
    with(c, |i| {
        i.slave.reset();
        OK
    })
}

/// # Safety
/// FMI 2.0: `vr` and `value` hold `n` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetReal(
    c: *mut c_void,
    vr: *const u32,
    n: usize,
    value: *mut f64,
) -> Status {
    // SAFETY: FMI 2.0 array arguments of length n.
    let (vr, value) = unsafe { (slice(vr, n), slice_mut(value, n)) };
    with(c, |i| {
        let mut result = Ok(());
        for (r, out) in vr.iter().zip(value.iter_mut()) {
            match i.slave.get_real(*r) {
                Ok(x) => *out = x,
                Err(e) => result = Err(e),
            }
        }
        i.status(result)
    })
}

/// # Safety
/// FMI 2.0: `vr` and `value` hold `n` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetReal(
    c: *mut c_void,
    vr: *const u32,
    n: usize,
    value: *const f64,
) -> Status {
    // SAFETY: FMI 2.0 array arguments of length n.
    let (vr, value) = unsafe { (slice(vr, n), slice(value, n)) };
    with(c, |i| {
        let result = vr
            .iter()
            .zip(value)
            .try_for_each(|(r, x)| i.slave.set_real(*r, *x));
        i.status(result)
    })
}

/// # Safety
/// FMI 2.0: `vr` and `value` hold `n` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetString(
    c: *mut c_void,
    vr: *const u32,
    n: usize,
    value: *mut *const c_char,
) -> Status {
    // SAFETY: FMI 2.0 array arguments of length n.
    let (vr, value) = unsafe { (slice(vr, n), slice_mut(value, n)) };
    with(c, |i| {
        let mut result = Ok(());
        i.strings.clear();
        for r in vr {
            match i.slave.get_string(*r) {
                Ok(s) => i.strings.push(CString::new(s).unwrap_or_default()),
                Err(e) => {
                    i.strings.push(CString::default());
                    result = Err(e);
                }
            }
        }
        // The strings stay valid until the next call on this instance (FMI 2.0 allows that).
        for (out, s) in value.iter_mut().zip(&i.strings) {
            *out = s.as_ptr();
        }
        i.status(result)
    })
}

/// # Safety
/// FMI 2.0: `vr` and `value` hold `n` elements, each a valid C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetString(
    c: *mut c_void,
    vr: *const u32,
    n: usize,
    value: *const *const c_char,
) -> Status {
    // SAFETY: FMI 2.0 array arguments of length n.
    let (vr, value) = unsafe { (slice(vr, n), slice(value, n)) };
    // SAFETY: FMI 2.0 passes valid C strings.
    let texts: Vec<String> = value.iter().map(|&p| unsafe { text(p) }).collect();
    with(c, |i| {
        let result = vr
            .iter()
            .zip(&texts)
            .try_for_each(|(r, s)| i.slave.set_string(*r, s));
        i.status(result)
    })
}

/// The model has no Integer or Boolean variables: any reference is an error, none is fine.
fn none_of_type(c: *mut c_void, n: usize, kind: &str) -> Status {
    with(c, |i| {
        let result = if n == 0 {
            Ok(())
        } else {
            Err(format!("this FMU has no {kind} variables"))
        };
        i.status(result)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetInteger(
    c: *mut c_void,
    _vr: *const u32,
    n: usize,
    _v: *mut i32,
) -> Status {
    none_of_type(c, n, "Integer")
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2SetInteger(
    c: *mut c_void,
    _vr: *const u32,
    n: usize,
    _v: *const i32,
) -> Status {
    none_of_type(c, n, "Integer")
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetBoolean(
    c: *mut c_void,
    _vr: *const u32,
    n: usize,
    _v: *mut i32,
) -> Status {
    none_of_type(c, n, "Boolean")
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2SetBoolean(
    c: *mut c_void,
    _vr: *const u32,
    n: usize,
    _v: *const i32,
) -> Status {
    none_of_type(c, n, "Boolean")
}

/// # Safety
/// FMI 2.0: `state` is a valid location for a state pointer (null or one of ours).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetFMUstate(c: *mut c_void, state: *mut *mut c_void) -> Status {
    if state.is_null() {
        return ERROR;
    }
    with(c, |i| {
        let snapshot = Box::new(i.slave.snapshot());
        // SAFETY: `state` is valid for writing; a previous state of ours there is replaced
        // and freed (FMI 2.0: "overwritten").
        unsafe {
            let old = *state;
            if !old.is_null() {
                drop(Box::from_raw(old as *mut Snapshot));
            }
            *state = Box::into_raw(snapshot) as *mut c_void;
        }
        OK
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2SetFMUstate(c: *mut c_void, state: *mut c_void) -> Status {
    if state.is_null() {
        return ERROR;
    }
    with(c, |i| {
        // SAFETY: `state` came from fmi2GetFMUstate of this library and was not freed.
        let snapshot = unsafe { &*(state as *const Snapshot) };
        i.slave.restore(snapshot);
        OK
    })
}

/// # Safety
/// FMI 2.0: `state` points to a state pointer of ours (or null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2FreeFMUstate(c: *mut c_void, state: *mut *mut c_void) -> Status {
    if state.is_null() {
        return OK;
    }
    with(c, |_| {
        // SAFETY: the pointer at `state` came from fmi2GetFMUstate and is freed once.
        unsafe {
            let old = *state;
            if !old.is_null() {
                drop(Box::from_raw(old as *mut Snapshot));
            }
            *state = std::ptr::null_mut();
        }
        OK
    })
}

fn not_supported(c: *mut c_void, what: &str) -> Status {
    with(c, |i| {
        i.status(Err(format!("{what} is not supported by this FMU")))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2SerializedFMUstateSize(
    c: *mut c_void,
    _s: *mut c_void,
    _size: *mut usize,
) -> Status {
    not_supported(c, "serializing the FMU state")
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2SerializeFMUstate(
    c: *mut c_void,
    _s: *mut c_void,
    _b: *mut u8,
    _n: usize,
) -> Status {
    not_supported(c, "serializing the FMU state")
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2DeSerializeFMUstate(
    c: *mut c_void,
    _b: *const u8,
    _n: usize,
    _s: *mut *mut c_void,
) -> Status {
    not_supported(c, "serializing the FMU state")
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetDirectionalDerivative(
    c: *mut c_void,
    _u: *const u32,
    _nu: usize,
    _k: *const u32,
    _nk: usize,
    _dk: *const f64,
    _du: *mut f64,
) -> Status {
    not_supported(c, "fmi2GetDirectionalDerivative")
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2SetRealInputDerivatives(
    c: *mut c_void,
    _vr: *const u32,
    n: usize,
    _order: *const i32,
    _v: *const f64,
) -> Status {
    none_of_type(c, n, "input")
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetRealOutputDerivatives(
    c: *mut c_void,
    _vr: *const u32,
    n: usize,
    _order: *const i32,
    _v: *mut f64,
) -> Status {
    // maxOutputDerivativeOrder = 0 in the description.
    if n == 0 {
        with(c, |_| OK)
    } else {
        not_supported(c, "output derivatives")
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2DoStep(c: *mut c_void, t: f64, h: f64, _no_set_prior: i32) -> Status {
    with(c, |i| {
        let r = i.slave.do_step(t, h);
        i.status(r)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2CancelStep(c: *mut c_void) -> Status {
    // doStep is synchronous: there is never a step to cancel.
    with(c, |_| WARNING)
}

/// # Safety
/// FMI 2.0: `value` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetStatus(c: *mut c_void, kind: i32, value: *mut Status) -> Status {
    with(c, |i| {
        if kind != 0 || value.is_null() {
            return DISCARD;
        }
        // SAFETY: writable per FMI 2.0.
        unsafe { *value = i.last_status };
        OK
    })
}

/// # Safety
/// FMI 2.0: `value` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetRealStatus(c: *mut c_void, kind: i32, value: *mut f64) -> Status {
    with(c, |i| {
        // fmi2LastSuccessfulTime = 2.
        if kind != 2 || value.is_null() {
            return DISCARD;
        }
        // SAFETY: writable per FMI 2.0.
        unsafe { *value = i.slave.time() };
        OK
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetIntegerStatus(c: *mut c_void, _kind: i32, _value: *mut i32) -> Status {
    with(c, |_| DISCARD)
}

/// # Safety
/// FMI 2.0: `value` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetBooleanStatus(
    c: *mut c_void,
    kind: i32,
    value: *mut i32,
) -> Status {
    with(c, |_| {
        // fmi2Terminated = 3: the slave never asks to stop early.
        if kind != 3 || value.is_null() {
            return DISCARD;
        }
        // SAFETY: writable per FMI 2.0.
        unsafe { *value = 0 };
        OK
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetStringStatus(
    c: *mut c_void,
    _kind: i32,
    _value: *mut *const c_char,
) -> Status {
    with(c, |_| DISCARD)
}
