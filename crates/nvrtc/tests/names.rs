//! Plain names of mangled entries, and kernel lookup by name.

use nvrtc::{ResolveError, plain_name, resolve_kernel};

fn check(mangled: &str, expected: &str) {
    assert_eq!(plain_name(mangled), expected, "plain name of {mangled}");
}

#[test]
fn unmangled_names_are_returned_unchanged() {
    check("saxpy", "saxpy");
    check("matmul_tiled", "matmul_tiled");
    check("", "");
    check("_Z", "_Z"); // truncated: not understood, returned as is
}

#[test]
fn simple_itanium_names() {
    check("_Z18convolution_kernelPfS_S_", "convolution_kernel");
    check("_Z6reducePKfPfi", "reduce");
    check("_Z1kv", "k");
    check("_Z3gcdii", "gcd");
    check("_Z5blendfffi", "blend");
    check("_ZL6staticPf", "static"); // internal linkage
}

#[test]
fn template_arguments_are_dropped() {
    check("_Z15transpose_tiledILi16EEvPfPKfi", "transpose_tiled");
    check("_Z6reduceIfLj256EEvPKT_PS0_i", "reduce");
    check("_Z4scanIiEvPT_", "scan");
}

#[test]
fn nested_names_are_qualified() {
    check("_ZN7ptxperf10stencil_1dEPKfPfi", "ptxperf::stencil_1d");
    check("_ZN1a1b6kernelEv", "a::b::kernel");
    check("_ZN2ns6kernelIiEEvPT_", "ns::kernel");
    check("_ZN2ns3FooILi4EE3runEv", "ns::Foo::run");
    check("_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector::size");
    check("_ZNK3Foo3getEv", "Foo::get"); // const member function
}

#[test]
fn malformed_mangled_names_are_returned_unchanged() {
    check("_Z99shortv", "_Z99shortv"); // length runs past the end
    check("_ZN3fooE", "foo");
    check("_ZN3foo", "_ZN3foo"); // no closing E
    check("_ZNE", "_ZNE");
    check("_Z0v", "_Z0v");
    check("_Z3fooILi16", "foo"); // the name comes before the broken args
    check("_ZN3fooILi16E", "_ZN3fooILi16E");
}

fn check_resolve(entries: &[&str], wanted: &str, expected: Result<&str, &str>) {
    let got = resolve_kernel(entries, wanted);
    match (got, expected) {
        (Ok(g), Ok(e)) => assert_eq!(g, e, "resolve {wanted} in {entries:?}"),
        (Err(err), Err(fragment)) => {
            let msg = err.to_string();
            assert!(
                msg.contains(fragment),
                "resolve {wanted}: error `{msg}` lacks `{fragment}`"
            );
        }
        (g, e) => panic!("resolve {wanted} in {entries:?}: got {g:?}, expected {e:?}"),
    }
}

#[test]
fn resolve_prefers_exact_then_plain_then_last_component() {
    let entries = [
        "saxpy",
        "_Z15transpose_tiledILi16EEvPfPKfi",
        "_ZN7ptxperf10stencil_1dEPKfPfi",
    ];
    check_resolve(&entries, "saxpy", Ok("saxpy"));
    check_resolve(
        &entries,
        "transpose_tiled",
        Ok("_Z15transpose_tiledILi16EEvPfPKfi"),
    );
    check_resolve(
        &entries,
        "_Z15transpose_tiledILi16EEvPfPKfi",
        Ok("_Z15transpose_tiledILi16EEvPfPKfi"),
    );
    check_resolve(
        &entries,
        "ptxperf::stencil_1d",
        Ok("_ZN7ptxperf10stencil_1dEPKfPfi"),
    );
    check_resolve(&entries, "stencil_1d", Ok("_ZN7ptxperf10stencil_1dEPKfPfi"));
    // An exact extern "C" name wins over a C++ entry with the same plain name.
    check_resolve(&["_Z1kPf", "k"], "k", Ok("k"));
    // A plain-name match wins over a last-component match.
    check_resolve(&["_ZN2ns1kEv", "_Z1kPf"], "k", Ok("_Z1kPf"));
}

#[test]
fn resolve_errors_list_candidates() {
    let entries = ["saxpy", "_Z15transpose_tiledILi16EEvPfPKfi"];
    check_resolve(
        &entries,
        "sgemm",
        Err(
            "no kernel named `sgemm`; the module has: saxpy, _Z15transpose_tiledILi16EEvPfPKfi (transpose_tiled)",
        ),
    );
    check_resolve(&[], "k", Err("the module has no kernels"));
    check_resolve(
        &["_Z1kIiEvv", "_Z1kIfEvv"],
        "k",
        Err("ambiguous, it matches: _Z1kIiEvv (k), _Z1kIfEvv (k)"),
    );
    check_resolve(&["_ZN1a1kEv", "_ZN1b1kEv"], "k", Err("ambiguous"));
    check_resolve(&["_ZN1a1kEv", "_ZN1b1kEv"], "b::k", Ok("_ZN1b1kEv"));
}

#[test]
fn resolve_error_values_carry_the_lists() {
    let err = resolve_kernel(&["_Z1kIiEvv", "_Z1kIfEvv"], "k").unwrap_err();
    assert_eq!(
        err,
        ResolveError::Ambiguous {
            wanted: "k".into(),
            matches: vec!["_Z1kIiEvv (k)".into(), "_Z1kIfEvv (k)".into()]
        }
    );
}
