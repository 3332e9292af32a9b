//! The C and C++ standard headers a kernel includes, for NVRTC.
//!
//! NVRTC ships no standard library: `#include <cstdint>`, `<math.h>` or
//! `<type_traits>` fail with "cannot open source file", though nvcc, which
//! uses the host compiler's headers, builds the same kernel. CCCL's libcu++
//! (`<cuda/std/...>`, the cccl wheel that scripts/setup.sh installs) has
//! device versions of most of them. These headers stand in for the standard
//! names: each includes its libcu++ counterpart and makes its names visible
//! in `std` (a using-directive for `cuda::std`: names `std` already declares
//! are found first, so nothing becomes ambiguous). Headers whose functions
//! NVRTC declares itself (printf, memcpy, malloc, the math functions of the
//! global namespace, `assert`) add only what is missing. They are passed to
//! NVRTC by name (nvrtcCreateProgram's headers), never written to disk, and
//! only where the CCCL headers are on the include path
//! ([`Compiler`](crate::Compiler)).

/// Makes libcu++'s names visible as `std::` names.
const STD_FROM_CUDA_STD: &str = "namespace std { using namespace cuda::std; }\n";

/// The limits of `<float.h>`: libcu++'s `<cuda/std/cfloat>` defines none
/// under NVRTC. IEEE 754 binary32 and binary64 (C11, 5.2.4.2.2).
const FLOAT_LIMITS: &str = "#ifndef FLT_MAX
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define FLT_MAX 3.40282346638528859812e+38F
#define DBL_MAX 1.79769313486231570815e+308
#define FLT_MIN 1.17549435082228750797e-38F
#define DBL_MIN 2.22507385850720138309e-308
#define FLT_EPSILON 1.1920928955078125e-07F
#define DBL_EPSILON 2.22044604925031308085e-16
#define FLT_TRUE_MIN 1.40129846432481707092e-45F
#define DBL_TRUE_MIN 4.94065645841246544177e-324
#endif
";

/// How a standard header is made.
enum Body {
    /// `#include <cuda/std/NAME>`, then `std` sees `cuda::std`.
    CudaStd(&'static str),
    /// `#include <cuda/std/NAME>` only (macros: `<climits>`, `<cassert>`).
    CudaStdMacros(&'static str),
    /// Text of its own.
    Text(&'static str),
    /// Nothing: NVRTC declares what the header would (printf, memcpy).
    Empty,
}

/// Every standard header provided, by the name a source includes.
const HEADERS: [(&str, Body); 30] = [
    ("cstdint", Body::CudaStd("cstdint")),
    ("stdint.h", Body::CudaStd("cstdint")),
    ("cstddef", Body::CudaStd("cstddef")),
    ("stddef.h", Body::CudaStd("cstddef")),
    ("climits", Body::CudaStdMacros("climits")),
    ("limits.h", Body::CudaStdMacros("climits")),
    ("cfloat", Body::Text(FLOAT_LIMITS)),
    ("float.h", Body::Text(FLOAT_LIMITS)),
    ("cmath", Body::CudaStd("cmath")),
    ("math.h", Body::CudaStd("cmath")),
    ("cstdlib", Body::CudaStd("cstdlib")),
    ("stdlib.h", Body::CudaStd("cstdlib")),
    ("cassert", Body::CudaStdMacros("cassert")),
    ("assert.h", Body::CudaStdMacros("cassert")),
    ("cstdio", Body::Empty),
    ("stdio.h", Body::Empty),
    ("cstring", Body::Empty),
    ("string.h", Body::Empty),
    ("type_traits", Body::CudaStd("type_traits")),
    ("limits", Body::CudaStd("limits")),
    ("utility", Body::CudaStd("utility")),
    ("array", Body::CudaStd("array")),
    ("tuple", Body::CudaStd("tuple")),
    ("functional", Body::CudaStd("functional")),
    ("complex", Body::CudaStd("complex")),
    ("bit", Body::CudaStd("bit")),
    ("numeric", Body::CudaStd("numeric")),
    ("iterator", Body::CudaStd("iterator")),
    ("atomic", Body::CudaStd("atomic")),
    // libcu++ 12.9 has no public <cuda/std/algorithm>; min and max are what
    // kernels take from it.
    (
        "algorithm",
        Body::Text(
            "#include <cuda/std/__algorithm/min.h>\n#include <cuda/std/__algorithm/max.h>\n",
        ),
    ),
];

/// The header a kernel can include without the host's standard library, if
/// one is provided under `name` (`cstdint`, `math.h`, `type_traits` ...).
pub fn standard_header(name: &str) -> Option<String> {
    let (_, body) = HEADERS.iter().find(|(n, _)| *n == name)?;
    let mut text = format!(
        "// ptxperf's <{name}> for NVRTC (crates/nvrtc/src/std_headers.rs)\n#pragma once\n"
    );
    match body {
        Body::CudaStd(h) => {
            text.push_str(&format!("#include <cuda/std/{h}>\n"));
            text.push_str(STD_FROM_CUDA_STD);
        }
        Body::CudaStdMacros(h) => text.push_str(&format!("#include <cuda/std/{h}>\n")),
        Body::Text(t) => text.push_str(t),
        Body::Empty => {}
    }
    Some(text)
}

/// Every provided header, (name, text), in a fixed order.
pub fn standard_headers() -> Vec<(String, String)> {
    HEADERS
        .iter()
        .filter_map(|(n, _)| Some((n.to_string(), standard_header(n)?)))
        .collect()
}

/// A digest of every provided header (FNV-1a, 64 bits, of the names and
/// texts), for the PTX cache's key: PTX compiled against other stand-ins is
/// never served.
pub fn digest() -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, text) in standard_headers() {
        for b in name.bytes().chain([0]).chain(text.bytes()).chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(name: &str, expect: Option<&[&str]>) {
        let got = standard_header(name);
        match (got, expect) {
            (None, None) => {}
            (Some(text), Some(needles)) => {
                assert!(text.contains("#pragma once"), "{text}");
                for n in needles {
                    assert!(text.contains(n), "no {n:?} in <{name}>:\n{text}");
                }
            }
            (got, expect) => panic!("<{name}>: got {got:?}, expected {expect:?}"),
        }
    }

    #[test]
    fn standard_names_map_to_libcu_or_their_own_text() {
        check(
            "cstdint",
            Some(&["<cuda/std/cstdint>", "using namespace cuda::std"]),
        );
        check("math.h", Some(&["<cuda/std/cmath>"]));
        check("climits", Some(&["<cuda/std/climits>"]));
        check(
            "float.h",
            Some(&["#define FLT_MAX 3.40282346638528859812e+38F"]),
        );
        check(
            "algorithm",
            Some(&["__algorithm/min.h", "__algorithm/max.h"]),
        );
        check("stdio.h", Some(&[]));
        check("vector", None);
        check("cuda/std/cstdint", None);
        assert_eq!(standard_headers().len(), HEADERS.len());
    }

    #[test]
    fn the_digest_is_stable_within_a_build() {
        assert_eq!(digest(), digest());
        assert_eq!(digest().len(), 16);
    }
}
