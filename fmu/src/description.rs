//! modelDescription.xml (FMI 2.0, co-simulation) of a model entry: the variables of
//! [`crate::variables`], a default experiment from the entry's defaults, and the model
//! structure (every output, every output an initial unknown). The GUID is a hash of the
//! rest of the description, so the same model gives the same file on every run.

use mbsim::runtime::catalog::ModelEntry;

use crate::variables::{Kind, Variable, variables};

/// `text` with the five XML special characters escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// The model identifier of an entry (its name with `-` as `_`): the shared library's name.
pub fn identifier(entry: &ModelEntry) -> String {
    entry.name.replace('-', "_")
}

/// FNV-1a, 128 bits as two 64-bit halves, formatted as a GUID.
fn guid(text: &str) -> String {
    let hash = |seed: u64| {
        text.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let (a, b) = (hash(0xcbf2_9ce4_8422_2325), hash(0x6c62_272e_07bb_0142));
    format!(
        "{{{:08x}-{:04x}-{:04x}-{:04x}-{:012x}}}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// The `<ScalarVariable>` element of `v`.
fn scalar(v: &Variable) -> String {
    let head = |causality: &str, variability: &str, initial: Option<&str>| {
        let initial = initial.map_or(String::new(), |i| format!(" initial=\"{i}\""));
        format!(
            "    <ScalarVariable name=\"{}\" valueReference=\"{}\" description=\"{}\" causality=\"{causality}\" variability=\"{variability}\"{initial}>\n",
            escape(&v.name),
            v.vr,
            escape(&v.description)
        )
    };
    let real = |start: f64| format!("      <Real start=\"{start:e}\"/>\n");
    let body = match &v.kind {
        Kind::Setting(default) => format!(
            "{}      <String start=\"{}\"/>\n",
            head("parameter", "fixed", Some("exact")),
            escape(default)
        ),
        Kind::Tolerance(x)
        | Kind::Parameter(x)
        | Kind::InitialPosition(_, x)
        | Kind::InitialVelocity(_, x) => {
            format!("{}{}", head("parameter", "fixed", Some("exact")), real(*x))
        }
        Kind::Position(_)
        | Kind::Velocity(_)
        | Kind::Multiplier(_)
        | Kind::DriftPosition
        | Kind::DriftVelocity => format!(
            "{}      <Real/>\n",
            head("output", "continuous", Some("calculated"))
        ),
    };
    format!("{body}    </ScalarVariable>\n")
}

/// modelDescription.xml of `entry`.
pub fn description(entry: &ModelEntry) -> String {
    let sys = (entry.build)();
    let (q0, v0) = (entry.initial)(sys.as_ref());
    let vars = variables(sys.as_ref(), &q0, &v0, entry.rtol);
    let id = identifier(entry);
    let mut variables_xml = String::new();
    let mut outputs = String::new();
    for (index, v) in vars.iter().enumerate() {
        variables_xml.push_str(&scalar(v));
        if v.is_output() {
            outputs.push_str(&format!("      <Unknown index=\"{}\"/>\n", index + 1));
        }
    }
    let body = format!(
        "  <CoSimulation modelIdentifier=\"{id}\" canHandleVariableCommunicationStepSize=\"true\" canGetAndSetFMUstate=\"true\" canSerializeFMUstate=\"false\" canNotUseMemoryManagementFunctions=\"true\" canInterpolateInputs=\"false\" maxOutputDerivativeOrder=\"0\"/>\n  <DefaultExperiment startTime=\"0\" stopTime=\"{t_end:e}\" tolerance=\"{rtol:e}\" stepSize=\"{dt:e}\"/>\n  <ModelVariables>\n{variables_xml}  </ModelVariables>\n  <ModelStructure>\n    <Outputs>\n{outputs}    </Outputs>\n    <InitialUnknowns>\n{outputs}    </InitialUnknowns>\n  </ModelStructure>\n",
        t_end = entry.t_end,
        rtol = entry.rtol,
        dt = entry.dt_out,
    );
    let head = format!(
        "modelName=\"{}\" description=\"{}\" generationTool=\"mbsim fmu {}\" variableNamingConvention=\"flat\" numberOfEventIndicators=\"0\"",
        escape(entry.name),
        escape(entry.title),
        env!("CARGO_PKG_VERSION"),
    );
    let id_text = format!("{head}\n{body}");
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription fmiVersion=\"2.0\" {head} guid=\"{}\">\n{body}</fmiModelDescription>\n",
        guid(&id_text)
    )
}

/// The GUID written into the description of `entry` (the C API checks it).
pub fn guid_of(entry: &ModelEntry) -> String {
    let text = description(entry);
    text.split("guid=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_string()
}
