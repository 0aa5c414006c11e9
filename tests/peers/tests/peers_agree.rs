//! The peers solve the same problem as the runtime: on the Andrews squeezer over [0, 0.03],
//! russell's DoPri5 and RKSTAB without stabilization (the same index-1 ODE) agree, and both
//! agree with RKSTAB/PStab, at rtol 1e-9.

use mbsim_peers::test_models::Sys;
use mbsim_peers::test_models::models::Andrews;
use mbsim_peers::{rkstab, russell, significant_digits};
use mbsim_runtime::Stabilization;
use russell_ode::Method;

#[test]
fn dopri5_peer_agrees_with_rkstab() {
    let sys = Sys(Andrews);
    let v0 = [0.0; 7];
    let mine = rkstab(&sys, Stabilization::None, 1e-9, &Andrews::Q0, &v0, 0.03).unwrap();
    let pstab = rkstab(&sys, Stabilization::PStab, 1e-9, &Andrews::Q0, &v0, 0.03).unwrap();
    let peer = russell(&sys, Method::DoPri5, 1e-9, &Andrews::Q0, &v0, 0.03).unwrap();
    // At rtol 1e-9 each run carries ~8 correct digits (measured 8.3–8.6 in the benchmark), so
    // two runs agree to at least ~7.
    let (a, b) = (
        significant_digits(&peer.q, &mine.q),
        significant_digits(&peer.q, &pstab.q),
    );
    assert!(
        a >= 7.0 && b >= 7.0,
        "agreement: dopri5 vs rkstab-none {a:.2} digits, vs rkstab-pstab {b:.2}"
    );
}

#[cfg(feature = "ida")]
#[test]
fn ida_peer_agrees_with_rkstab() {
    let sys = Sys(Andrews);
    let v0 = [0.0; 7];
    let pstab = rkstab(&sys, Stabilization::PStab, 1e-10, &Andrews::Q0, &v0, 0.03).unwrap();
    let peer = mbsim_peers::ida(&sys, 1e-8, &Andrews::Q0, &v0, 0.03).unwrap();
    // BDF at rtol 1e-8 is less accurate per tolerance than DOPRI5; 4 digits is a loose floor.
    let d = significant_digits(&peer.q, &pstab.q);
    assert!(d >= 4.0, "ida vs rkstab-pstab: {d:.2} digits");
}
