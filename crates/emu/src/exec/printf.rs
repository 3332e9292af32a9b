//! Device `printf` (`vprintf(format, args)`): the C format string is read from
//! memory, the arguments from the packed buffer the kernel built in local
//! memory, each aligned to its own size (ints 4 bytes, `long`/pointers/
//! doubles 8; floats arrive promoted to double, as in C varargs).

use crate::mem::MemFault;

/// Longest format string read before giving up on a missing terminator.
const MAX_FORMAT: usize = 4096;

pub type Read<'a> = dyn FnMut(u64, &mut [u8]) -> Result<(), MemFault> + 'a;

fn read_cstr(read: &mut Read<'_>, addr: u64) -> Result<Vec<u8>, MemFault> {
    let mut out = Vec::new();
    let mut b = [0u8; 1];
    while out.len() < MAX_FORMAT {
        read(addr + out.len() as u64, &mut b)?;
        if b[0] == 0 {
            break;
        }
        out.push(b[0]);
    }
    Ok(out)
}

struct Args<'r, 'a> {
    read: &'r mut Read<'a>,
    addr: u64,
    off: u64,
}

impl Args<'_, '_> {
    fn take(&mut self, size: u64) -> Result<u64, MemFault> {
        self.off = self.off.div_ceil(size) * size;
        let mut b = [0u8; 8];
        (self.read)(self.addr + self.off, &mut b[..size as usize])?;
        self.off += size;
        Ok(u64::from_le_bytes(b))
    }
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

fn pad(s: String, sp: &Spec, numeric: bool) -> String {
    let len = s.chars().count();
    if len >= sp.width {
        return s;
    }
    let fill = sp.width - len;
    if sp.left {
        format!("{s}{}", " ".repeat(fill))
    } else if sp.zero && numeric {
        // Zeros go after the sign or 0x prefix.
        let split = s.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
        let split = if s[split..].starts_with("0x") || s[split..].starts_with("0X") {
            split + 2
        } else {
            split
        };
        format!("{}{}{}", &s[..split], "0".repeat(fill), &s[split..])
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

fn sign(neg: bool, sp: &Spec) -> &'static str {
    if neg {
        "-"
    } else if sp.plus {
        "+"
    } else if sp.space {
        " "
    } else {
        ""
    }
}

/// C's `%e` body: d.ddddde±XX.
fn fmt_e(v: f64, prec: usize, upper: bool) -> String {
    let s = format!("{:.*e}", prec, v.abs());
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let r = format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    if upper { r.to_uppercase() } else { r }
}

fn fmt_g(v: f64, prec: usize, alt: bool, upper: bool) -> String {
    let p = prec.max(1);
    if v == 0.0 {
        return if alt {
            format!("{:.*}", p - 1, 0.0)
        } else {
            "0".into()
        };
    }
    let exp = format!("{:.*e}", p - 1, v.abs())
        .split_once('e')
        .and_then(|(_, e)| e.parse::<i32>().ok())
        .unwrap_or(0);
    let mut s = if exp < -4 || exp >= p as i32 {
        fmt_e(v, p - 1, upper)
    } else {
        format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, v.abs())
    };
    if !alt {
        // Strip trailing zeros of the fraction (before any exponent).
        let (body, tail) = match s.find(['e', 'E']) {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        let body = if body.contains('.') {
            body.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            body
        };
        s = body + &tail;
    }
    s
}

fn float(v: f64, conv: u8, sp: &Spec) -> String {
    let upper = conv.is_ascii_uppercase();
    let body = if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        "inf".to_string()
    } else {
        let p = sp.prec.unwrap_or(6);
        match conv {
            b'f' | b'F' => format!("{:.*}", p, v.abs()),
            b'e' | b'E' => fmt_e(v, p, upper),
            b'a' | b'A' => format!("{:e}", v.abs()),
            _ => fmt_g(v, p, sp.alt, upper),
        }
    };
    let body = if upper { body.to_uppercase() } else { body };
    pad(
        format!("{}{body}", sign(v.is_sign_negative() && !v.is_nan(), sp)),
        sp,
        v.is_finite(),
    )
}

fn integer(raw: u64, bytes: u64, conv: u8, sp: &Spec) -> String {
    let bits = bytes * 8;
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let u = raw & mask;
    let (neg, mag) = if matches!(conv, b'd' | b'i') {
        let s = ((u << (64 - bits)) as i64) >> (64 - bits);
        (s < 0, s.unsigned_abs())
    } else {
        (false, u)
    };
    let mut digits = match conv {
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        b'o' => format!("{mag:o}"),
        _ => format!("{mag}"),
    };
    if let Some(p) = sp.prec {
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
        if p == 0 && mag == 0 {
            digits.clear();
        }
    }
    let prefix = match conv {
        b'x' if sp.alt && mag != 0 => "0x",
        b'X' if sp.alt && mag != 0 => "0X",
        b'o' if sp.alt && !digits.starts_with('0') => "0",
        _ => "",
    };
    let sgn = if matches!(conv, b'd' | b'i') {
        sign(neg, sp)
    } else {
        ""
    };
    let spz = Spec {
        zero: sp.zero && sp.prec.is_none(),
        ..Spec {
            left: sp.left,
            width: sp.width,
            ..Default::default()
        }
    };
    pad(format!("{sgn}{prefix}{digits}"), &spz, true)
}

/// Format one thread's printf call.
pub fn format(fmt_addr: u64, args_addr: u64, read: &mut Read<'_>) -> Result<String, MemFault> {
    let fmt = read_cstr(read, fmt_addr)?;
    let mut args = Args {
        read,
        addr: args_addr,
        off: 0,
    };
    let mut out = String::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            // Copy a run of plain bytes, keeping UTF-8 intact.
            let start = i - 1;
            while i < fmt.len() && fmt[i] != b'%' {
                i += 1;
            }
            out.push_str(&String::from_utf8_lossy(&fmt[start..i]));
            continue;
        }
        let mut sp = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => sp.left = true,
                b'+' => sp.plus = true,
                b' ' => sp.space = true,
                b'#' => sp.alt = true,
                b'0' => sp.zero = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            sp.width = args.take(4)? as u32 as i32 as usize;
            i += 1;
        }
        while let Some(d @ b'0'..=b'9') = fmt.get(i) {
            sp.width = sp
                .width
                .saturating_mul(10)
                .saturating_add((d - b'0') as usize);
            i += 1;
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0usize;
            if fmt.get(i) == Some(&b'*') {
                p = args.take(4)? as u32 as usize;
                i += 1;
            }
            while let Some(d @ b'0'..=b'9') = fmt.get(i) {
                p = p.saturating_mul(10).saturating_add((d - b'0') as usize);
                i += 1;
            }
            sp.prec = Some(p.min(512));
        }
        let mut size = 4u64;
        while let Some(&l) = fmt.get(i) {
            match l {
                b'h' => {}
                b'l' | b'z' | b'j' | b't' | b'L' | b'q' => size = 8,
                _ => break,
            }
            i += 1;
        }
        sp.width = sp.width.min(4096);
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        match conv {
            b'%' => out.push('%'),
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                let v = args.take(size)?;
                out.push_str(&integer(v, size, conv, &sp));
            }
            b'c' => {
                let v = args.take(4)? as u8;
                out.push_str(&pad((v as char).to_string(), &sp, false));
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let v = f64::from_bits(args.take(8)?);
                out.push_str(&float(v, conv, &sp));
            }
            b'p' => {
                let v = args.take(8)?;
                out.push_str(&pad(format!("0x{v:x}"), &sp, false));
            }
            b's' => {
                let p = args.take(8)?;
                let mut s = read_cstr(args.read, p)?;
                if let Some(pr) = sp.prec {
                    s.truncate(pr);
                }
                out.push_str(&pad(String::from_utf8_lossy(&s).into_owned(), &sp, false));
            }
            other => {
                out.push('%');
                out.push(other as char);
            }
        }
    }
    Ok(out)
}
