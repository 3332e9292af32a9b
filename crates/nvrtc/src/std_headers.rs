//! The C and C++ standard headers a kernel includes, for NVRTC.
//!
//! NVRTC ships no standard library: `#include <cstdint>`, `<math.h>` or
//! `<type_traits>` fail with "cannot open source file", though nvcc, which
//! uses the host compiler's headers, builds the same kernel. CCCL's libcu++
//! (`<cuda/std/...>`, the cccl wheel that scripts/setup.sh installs) has
//! device versions of most of them. These headers stand in for the standard
//! names, three ways. The math and `<cstdlib>` functions NVRTC declares
//! itself in the global namespace become `std::` names of those same
//! functions, as in a host library (`std::abs` is `::abs`), and nothing from
//! libcu++ comes with them. `<cstdint>` and `<cstddef>` name their types one
//! by one from libcu++. The class-template headers (`<type_traits>`,
//! `<limits>`, `<array>` ...) include their libcu++ counterpart and make all
//! of `cuda::std` visible in `std` (a using-directive: names `std` declares
//! itself are found first). That directive is why the first two are named
//! one by one (and `<array>`, whose libcu++ header declares an `abs`): with
//! it, `using namespace std; abs(x)` would see libcu++'s `abs` beside
//! CUDA's and be ambiguous, where a kernel includes only `<cstdint>` and
//! `<cmath>`. It still is with `<functional>` or `<complex>`, whose libcu++
//! headers declare `abs` too (call `::abs` or `std::abs` there). `<cstdio>` and `<cstring>` are empty (NVRTC
//! has printf, memcpy and memset). They are passed to
//! NVRTC by name (nvrtcCreateProgram's headers), never written to disk, and
//! only where the CCCL headers are on the include path
//! ([`Compiler`](crate::Compiler)).

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

/// The macros of `<math.h>` that nvcc's kernels get from the host's C
/// library (nvcc includes it implicitly; NVRTC has none of them): C99's
/// `INFINITY`, `NAN`, `HUGE_VAL` and `HUGE_VALF` (C11, 7.12), as the bits
/// glibc gives (an infinity, the quiet NaN 0x7fc00000 of `nanf("")`), built
/// with the CUDA math API's bit casts as NVIDIA's `math_constants.h` builds
/// `CUDART_INF_F`; and the POSIX constants `M_E` to `M_SQRT1_2` with glibc's
/// digits (glibc `math.h`, which g++ exposes by default).
const MATH_MACROS: &str = "#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000U)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fc00000U)
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __int_as_float(0x7f800000U)
#endif
#ifndef HUGE_VAL
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#endif
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
";

/// The C math functions NVRTC declares in the global namespace (the CUDA
/// math API, float and double overloads), each checked present with
/// NVRTC 12.9. `<cmath>` makes these same functions `std::` names, as a host
/// library does: `std::abs` is `::abs`, so `using namespace std;` and a call
/// `abs(x)` find one function, not two (with libcu++'s `cuda::std::abs`
/// beside CUDA's `::abs`, such a call was ambiguous).
const MATH_GLOBAL: &[&str] = &[
    "abs",
    "fabs",
    "sqrt",
    "cbrt",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "pow",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "floor",
    "ceil",
    "round",
    "trunc",
    "rint",
    "nearbyint",
    "lround",
    "llround",
    "lrint",
    "llrint",
    "fmod",
    "remainder",
    "remquo",
    "fmin",
    "fmax",
    "fdim",
    "fma",
    "hypot",
    "erf",
    "erfc",
    "tgamma",
    "lgamma",
    "frexp",
    "ldexp",
    "modf",
    "scalbn",
    "scalbln",
    "ilogb",
    "logb",
    "nextafter",
    "copysign",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "nan",
];

/// The `<cstdlib>` functions NVRTC declares globally (device `malloc` and
/// `free` included), made `std::` names as for [`MATH_GLOBAL`].
const STDLIB_GLOBAL: &[&str] = &["abs", "labs", "llabs", "malloc", "free"];

/// The names each header makes `std::` names, one using-declaration of
/// libcu++'s each (`namespace std { using ::cuda::std::NAME; }`), each
/// checked to compile with NVRTC 12.9 and CCCL 12.9. One by one, not a
/// using-directive for all of `cuda::std`: that would bring libcu++'s own
/// `abs` (which `<array>`, `<functional>` and `<complex>` declare) beside
/// CUDA's global one, and `using namespace std; abs(x)` would be
/// ambiguous. The candidates were the standard's names for each header;
/// those libcu++ lacks (`std::function`, `std::ssize`, most `_t`/`_v`
/// spellings of type traits that have none) are left out.
const CSTDINT: &str = "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t \
    int_least8_t int_least16_t int_least32_t int_least64_t uint_least8_t uint_least16_t \
    uint_least32_t uint_least64_t int_fast8_t int_fast16_t int_fast32_t int_fast64_t \
    uint_fast8_t uint_fast16_t uint_fast32_t uint_fast64_t intptr_t uintptr_t intmax_t \
    uintmax_t";
const CSTDDEF: &str = "size_t ptrdiff_t nullptr_t max_align_t byte";
const ARRAY: &str = "array to_array get swap";
const TYPE_TRAITS: &str = "integral_constant bool_constant true_type false_type is_void is_null_pointer is_integral \
    is_floating_point is_array is_enum is_union is_class is_function is_pointer \
    is_lvalue_reference is_rvalue_reference is_member_object_pointer \
    is_member_function_pointer is_fundamental is_arithmetic is_scalar is_object is_compound \
    is_reference is_member_pointer is_const is_volatile is_trivial is_trivially_copyable \
    is_standard_layout is_pod is_empty is_polymorphic is_abstract is_final is_aggregate \
    is_signed is_unsigned is_bounded_array is_unbounded_array is_constructible \
    is_trivially_constructible is_nothrow_constructible is_default_constructible \
    is_trivially_default_constructible is_nothrow_default_constructible \
    is_copy_constructible is_trivially_copy_constructible is_nothrow_copy_constructible \
    is_move_constructible is_trivially_move_constructible is_nothrow_move_constructible \
    is_assignable is_trivially_assignable is_nothrow_assignable is_copy_assignable \
    is_trivially_copy_assignable is_nothrow_copy_assignable is_move_assignable \
    is_trivially_move_assignable is_nothrow_move_assignable is_destructible \
    is_trivially_destructible is_nothrow_destructible has_virtual_destructor is_swappable \
    is_nothrow_swappable has_unique_object_representations alignment_of rank extent is_same \
    is_base_of is_convertible is_nothrow_convertible is_invocable is_invocable_r \
    is_nothrow_invocable invoke_result remove_cv remove_const remove_volatile add_cv \
    add_const add_volatile remove_reference add_lvalue_reference add_rvalue_reference \
    remove_pointer add_pointer make_signed make_unsigned remove_extent remove_all_extents \
    aligned_storage aligned_union decay remove_cvref enable_if conditional common_type \
    common_reference underlying_type void_t type_identity conjunction disjunction negation \
    is_constant_evaluated is_void_v is_null_pointer_v is_integral_v is_floating_point_v \
    is_array_v is_enum_v is_union_v is_class_v is_function_v is_pointer_v \
    is_lvalue_reference_v is_rvalue_reference_v is_member_object_pointer_v \
    is_member_function_pointer_v is_fundamental_v is_arithmetic_v is_scalar_v is_object_v \
    is_compound_v is_reference_v is_member_pointer_v is_const_v is_volatile_v is_trivial_v \
    is_trivially_copyable_v is_standard_layout_v is_pod_v is_empty_v is_polymorphic_v \
    is_abstract_v is_final_v is_aggregate_v is_signed_v is_unsigned_v is_bounded_array_v \
    is_unbounded_array_v is_constructible_v is_trivially_constructible_v \
    is_nothrow_constructible_v is_default_constructible_v \
    is_trivially_default_constructible_v is_nothrow_default_constructible_v \
    is_copy_constructible_v is_trivially_copy_constructible_v \
    is_nothrow_copy_constructible_v is_move_constructible_v \
    is_trivially_move_constructible_v is_nothrow_move_constructible_v is_assignable_v \
    is_trivially_assignable_v is_nothrow_assignable_v is_copy_assignable_v \
    is_trivially_copy_assignable_v is_nothrow_copy_assignable_v is_move_assignable_v \
    is_trivially_move_assignable_v is_nothrow_move_assignable_v is_destructible_v \
    is_trivially_destructible_v is_nothrow_destructible_v has_virtual_destructor_v \
    is_swappable_v is_nothrow_swappable_v has_unique_object_representations_v alignment_of_v \
    rank_v extent_v is_same_v is_base_of_v is_convertible_v is_nothrow_convertible_v \
    is_invocable_v is_invocable_r_v is_nothrow_invocable_v invoke_result_t remove_cv_t \
    remove_const_t remove_volatile_t add_cv_t add_const_t add_volatile_t remove_reference_t \
    add_lvalue_reference_t add_rvalue_reference_t remove_pointer_t add_pointer_t \
    make_signed_t make_unsigned_t remove_extent_t remove_all_extents_t aligned_storage_t \
    aligned_union_t decay_t remove_cvref_t enable_if_t conditional_t common_type_t \
    common_reference_t underlying_type_t type_identity_t conjunction_v disjunction_v \
    negation_v";
const LIMITS: &str = "numeric_limits float_round_style float_denorm_style round_indeterminate \
    round_toward_zero round_to_nearest round_toward_infinity round_toward_neg_infinity \
    denorm_indeterminate denorm_absent denorm_present";
const UTILITY: &str = "pair make_pair move move_if_noexcept forward swap exchange declval as_const \
    integer_sequence index_sequence make_integer_sequence make_index_sequence \
    index_sequence_for in_place in_place_t in_place_type in_place_type_t in_place_index \
    in_place_index_t piecewise_construct piecewise_construct_t cmp_equal cmp_less \
    to_underlying unreachable";
const TUPLE: &str = "tuple make_tuple tie forward_as_tuple tuple_cat apply make_from_tuple ignore";
const FUNCTIONAL: &str = "plus minus multiplies divides modulus negate equal_to not_equal_to greater less \
    greater_equal less_equal logical_and logical_or logical_not bit_and bit_or bit_xor \
    bit_not invoke reference_wrapper ref cref identity not_fn hash";
const COMPLEX: &str = "complex real imag arg norm conj proj polar";
const BIT: &str = "bit_cast byteswap has_single_bit bit_ceil bit_floor bit_width rotl rotr countl_zero \
    countl_one countr_zero countr_one popcount endian";
const NUMERIC: &str = "iota accumulate reduce inner_product transform_reduce partial_sum exclusive_scan \
    inclusive_scan adjacent_difference gcd lcm midpoint";
const ITERATOR: &str = "iterator_traits input_iterator_tag output_iterator_tag forward_iterator_tag \
    bidirectional_iterator_tag random_access_iterator_tag contiguous_iterator_tag \
    reverse_iterator make_reverse_iterator move_iterator make_move_iterator advance distance \
    next prev begin end cbegin cend rbegin rend size data empty";
const ATOMIC: &str = "atomic atomic_ref atomic_flag memory_order memory_order_relaxed memory_order_consume \
    memory_order_acquire memory_order_release memory_order_acq_rel memory_order_seq_cst \
    atomic_thread_fence atomic_signal_fence";

/// How a standard header is made.
enum Body {
    /// `std::` names for functions NVRTC declares globally.
    Global(&'static [&'static str]),
    /// As `Global`, then text of its own (`<math.h>`'s macros).
    GlobalAnd(&'static [&'static str], &'static str),
    /// `#include <cuda/std/H>`, then these of its names (separated by
    /// blanks) as `std::` names.
    Using(&'static str, &'static str),
    /// `#include <cuda/std/NAME>` only (macros: `<climits>`, `<cassert>`).
    CudaStdMacros(&'static str),
    /// Text of its own.
    Text(&'static str),
    /// Nothing: NVRTC declares what the header would (printf, memcpy).
    Empty,
}

/// Every standard header provided, by the name a source includes.
const HEADERS: [(&str, Body); 30] = [
    ("cstdint", Body::Using("cstdint", CSTDINT)),
    ("stdint.h", Body::Using("cstdint", CSTDINT)),
    ("cstddef", Body::Using("cstddef", CSTDDEF)),
    ("stddef.h", Body::Using("cstddef", CSTDDEF)),
    ("climits", Body::CudaStdMacros("climits")),
    ("limits.h", Body::CudaStdMacros("climits")),
    ("cfloat", Body::Text(FLOAT_LIMITS)),
    ("float.h", Body::Text(FLOAT_LIMITS)),
    ("cmath", Body::GlobalAnd(MATH_GLOBAL, MATH_MACROS)),
    ("math.h", Body::GlobalAnd(MATH_GLOBAL, MATH_MACROS)),
    ("cstdlib", Body::Global(STDLIB_GLOBAL)),
    ("stdlib.h", Body::Global(STDLIB_GLOBAL)),
    ("cassert", Body::CudaStdMacros("cassert")),
    ("assert.h", Body::CudaStdMacros("cassert")),
    ("cstdio", Body::Empty),
    ("stdio.h", Body::Empty),
    ("cstring", Body::Empty),
    ("string.h", Body::Empty),
    ("type_traits", Body::Using("type_traits", TYPE_TRAITS)),
    ("limits", Body::Using("limits", LIMITS)),
    ("utility", Body::Using("utility", UTILITY)),
    ("array", Body::Using("array", ARRAY)),
    ("tuple", Body::Using("tuple", TUPLE)),
    ("functional", Body::Using("functional", FUNCTIONAL)),
    ("complex", Body::Using("complex", COMPLEX)),
    ("bit", Body::Using("bit", BIT)),
    ("numeric", Body::Using("numeric", NUMERIC)),
    ("iterator", Body::Using("iterator", ITERATOR)),
    ("atomic", Body::Using("atomic", ATOMIC)),
    // libcu++ 12.9 has no public <cuda/std/algorithm>; min and max are what
    // kernels take from it.
    (
        "algorithm",
        Body::Text(
            "#include <cuda/std/__algorithm/min.h>\n#include <cuda/std/__algorithm/max.h>\n\
             namespace std {\nusing ::cuda::std::min;\nusing ::cuda::std::max;\n}\n",
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
        Body::CudaStdMacros(h) => text.push_str(&format!("#include <cuda/std/{h}>\n")),
        Body::Global(names) => global_names(&mut text, names),
        Body::GlobalAnd(names, more) => {
            global_names(&mut text, names);
            text.push_str(more);
        }
        Body::Using(header, names) => {
            text.push_str(&format!("#include <cuda/std/{header}>\nnamespace std {{\n"));
            for n in names.split_whitespace() {
                text.push_str(&format!("using ::cuda::std::{n};\n"));
            }
            text.push_str("}\n");
        }
        Body::Text(t) => text.push_str(t),
        Body::Empty => {}
    }
    Some(text)
}

/// `names`, declared globally, as `std::` names.
fn global_names(text: &mut String, names: &[&str]) {
    text.push_str("namespace std {\n");
    for n in names {
        text.push_str(&format!("using ::{n};\n"));
    }
    text.push_str("}\n");
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
pub fn digest() -> &'static str {
    // Computed once: the PTX cache asks for it with every configuration.
    static DIGEST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DIGEST.get_or_init(|| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for (name, text) in standard_headers() {
            for b in name.bytes().chain([0]).chain(text.bytes()).chain([0]) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        format!("{h:016x}")
    })
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
            Some(&["<cuda/std/cstdint>", "using ::cuda::std::uint64_t;"]),
        );
        check(
            "type_traits",
            Some(&[
                "using ::cuda::std::is_same;",
                "using ::cuda::std::is_same_v;",
            ]),
        );
        check("limits", Some(&["using ::cuda::std::numeric_limits;"]));
        check(
            "math.h",
            Some(&[
                "namespace std {",
                "using ::abs;",
                "using ::isnan;",
                "#define INFINITY __int_as_float(0x7f800000U)",
                "#define M_PI 3.14159265358979323846",
            ]),
        );
        check("cmath", Some(&["#define NAN __int_as_float(0x7fc00000U)"]));
        check("cstdlib", Some(&["using ::malloc;"]));
        check("climits", Some(&["<cuda/std/climits>"]));
        check(
            "float.h",
            Some(&["#define FLT_MAX 3.40282346638528859812e+38F"]),
        );
        check(
            "algorithm",
            Some(&[
                "__algorithm/min.h",
                "__algorithm/max.h",
                "using ::cuda::std::max;",
            ]),
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
