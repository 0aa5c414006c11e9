//! Generation-time diagnostics (`mbsim_codegen::diagnose`): repeated rows (equal or opposite)
//! by name, the structural rank of G = [Φ_q; A] and the rows a maximum matching leaves
//! unmatched, on small models written in the model language, and the matching itself on
//! patterns with a known maximum.

use mbsim_codegen::diagnose::{self, maximum_matching};
use mbsim_codegen::frontend;
use mbsim_codegen::kernels::derive;
use quote::quote;

fn diagnostics(attr: proc_macro2::TokenStream) -> diagnose::Diagnostics {
    let item = quote!(
        pub struct M {
            pub l: f64,
        }
    );
    let mut model = frontend::model(attr, item).expect("a valid model");
    let kernels = derive(&mut model);
    diagnose::diagnose(&model, &kernels)
}

#[test]
fn a_repeated_and_a_negated_row_are_named() {
    let d = diagnostics(quote!(
        coordinates: [x, y],
        holonomic: [
            rod = x.powi(2) + y.powi(2) - l.powi(2),
            again = x.powi(2) + y.powi(2) - l.powi(2),
            flipped = l.powi(2) - x.powi(2) - y.powi(2),
        ],
        mass: diag(1.0, 1.0),
    ));
    assert_eq!(
        d.repeated_rows,
        [
            ("rod".to_string(), "again".to_string()),
            ("rod".into(), "flipped".into())
        ]
    );
    assert_eq!(d.structural_rank, 2, "three rows on two columns");
    assert_eq!(d.structurally_redundant, ["flipped"]);
}

#[test]
fn a_well_posed_model_has_full_structural_rank() {
    let d = diagnostics(quote!(
        coordinates: [x, y, z],
        holonomic: [rod = x.powi(2) + y.powi(2) - l.powi(2), slide = z - x],
        mass: diag(1.0, 1.0, 1.0),
    ));
    assert!(d.repeated_rows.is_empty());
    assert_eq!(d.structural_rank, 2);
    assert!(d.structurally_redundant.is_empty());
}

#[test]
fn two_rows_on_one_coordinate_are_structurally_dependent() {
    let d = diagnostics(quote!(
        coordinates: [x, y],
        holonomic: [a = x - l, b = x.sin() - 0.5],
        mass: diag(1.0, 1.0),
    ));
    assert_eq!(d.structural_rank, 1);
    assert_eq!(d.structurally_redundant, ["b"]);
}

/// Patterns whose maximum matchings are known: a greedy first choice must be undone by an
/// augmenting path (rows 0 and 1 both like column 0; row 1 can only use it), a chain that needs
/// a long alternating path, and a deficient pattern.
#[test]
fn maximum_matching_finds_augmenting_paths() {
    let size = |p: &[Vec<usize>], cols| maximum_matching(p, cols).iter().flatten().count();
    assert_eq!(size(&[vec![0, 1], vec![0]], 2), 2);
    let chain: Vec<Vec<usize>> = (0..200)
        .map(|r| if r == 0 { vec![0] } else { vec![r - 1, r] })
        .collect();
    assert_eq!(size(&chain, 200), 200);
    let reversed: Vec<Vec<usize>> = (0..200).map(|r| (0..=r).rev().collect()).collect();
    assert_eq!(size(&reversed, 200), 200);
    assert_eq!(size(&[vec![0], vec![0], vec![1]], 3), 2);
}
