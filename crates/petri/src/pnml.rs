//! Export of a [`Net`] to PNML, the ISO/IEC 15909-2 interchange format, with
//! the P/T net type `http://www.pnml.org/version-2009/grammar/ptnet`:
//! `pnml > net(id, type) > name, page(id) > place(id) > name, initialMarking;
//! transition(id) > name; arc(id, source, target) > inscription`.
//!
//! The P/T grammar has no inhibitor arcs or capacities. Inhibitor arcs are
//! written as arcs from the place to the transition marked in one of two ways
//! ([`InhibitorStyle`]): by default with the attribute `type="inhibitor"` on the
//! `arc` element, the convention several PNML tools read (and which a strict
//! RELAX NG check of the ptnet grammar rejects); or, for strict validity, with a
//! `<toolspecific tool="ptxperf" version="1.0"><arcType>inhibitor</arcType></toolspecific>`
//! child (tools that skip tool-specific data then read an ordinary arc).
//! Capacities are always written as `<toolspecific tool="ptxperf"
//! version="1.0"><capacity>N</capacity></toolspecific>` inside the place.
//! Node ids are `p<index>` and `t<index>`, arc ids `a<index>`; names are the
//! net's own, XML-escaped.

use crate::net::{ArcKind, Net};
use std::fmt::Write;

/// How inhibitor arcs are marked (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InhibitorStyle {
    /// `<arc ... type="inhibitor">`.
    #[default]
    TypeAttribute,
    /// A `toolspecific` child naming the arc type.
    ToolSpecific,
}

/// The PNML namespace of the 2009 grammar.
pub const PNML_NAMESPACE: &str = "http://www.pnml.org/version-2009/grammar/pnml";
/// The P/T net type.
pub const PTNET_TYPE: &str = "http://www.pnml.org/version-2009/grammar/ptnet";

/// Escape the five XML special characters.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The whole net as a PNML document.
pub fn to_pnml(net: &Net, style: InhibitorStyle) -> String {
    let mut s = String::new();
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(s, r#"<pnml xmlns="{PNML_NAMESPACE}">"#);
    let _ = writeln!(s, r#"  <net id="net0" type="{PTNET_TYPE}">"#);
    let _ = writeln!(
        s,
        "    <name><text>{}</text></name>",
        xml_escape(net.name())
    );
    let _ = writeln!(s, r#"    <page id="page0">"#);
    for (i, p) in net.places().iter().enumerate() {
        let _ = writeln!(s, r#"      <place id="p{i}">"#);
        let _ = writeln!(
            s,
            "        <name><text>{}</text></name>",
            xml_escape(&p.name)
        );
        if p.initial > 0 {
            let _ = writeln!(
                s,
                "        <initialMarking><text>{}</text></initialMarking>",
                p.initial
            );
        }
        if let Some(cap) = p.capacity {
            let _ = writeln!(
                s,
                r#"        <toolspecific tool="ptxperf" version="1.0"><capacity>{cap}</capacity></toolspecific>"#
            );
        }
        let _ = writeln!(s, "      </place>");
    }
    for (i, t) in net.transitions().iter().enumerate() {
        let _ = writeln!(s, r#"      <transition id="t{i}">"#);
        let _ = writeln!(
            s,
            "        <name><text>{}</text></name>",
            xml_escape(&t.name)
        );
        let _ = writeln!(s, "      </transition>");
    }
    for (i, a) in net.arcs().iter().enumerate() {
        let (src, dst) = match a.kind {
            ArcKind::Output => (
                format!("t{}", a.transition.index()),
                format!("p{}", a.place.index()),
            ),
            ArcKind::Input | ArcKind::Inhibitor => (
                format!("p{}", a.place.index()),
                format!("t{}", a.transition.index()),
            ),
        };
        let inhibitor = a.kind == ArcKind::Inhibitor;
        let attr = if inhibitor && style == InhibitorStyle::TypeAttribute {
            r#" type="inhibitor""#
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r#"      <arc id="a{i}" source="{src}" target="{dst}"{attr}>"#
        );
        let _ = writeln!(
            s,
            "        <inscription><text>{}</text></inscription>",
            a.weight
        );
        if inhibitor && style == InhibitorStyle::ToolSpecific {
            let _ = writeln!(
                s,
                r#"        <toolspecific tool="ptxperf" version="1.0"><arcType>inhibitor</arcType></toolspecific>"#
            );
        }
        let _ = writeln!(s, "      </arc>");
    }
    let _ = writeln!(s, "    </page>");
    let _ = writeln!(s, "  </net>");
    let _ = writeln!(s, "</pnml>");
    s
}
