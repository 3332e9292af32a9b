//! PNML and DOT export: the PNML document is checked with a small XML reader
//! of our own against the structure of the ISO/IEC 15909-2 P/T net grammar.

use petri::warp;
use petri::{InhibitorStyle, NetBuilder, WarpCounts, WarpModelConfig, to_dot, to_pnml};
use std::collections::{HashMap, HashSet};

/// An XML element: name, attributes, children, text.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attrs: HashMap<String, String>,
    children: Vec<Element>,
    text: String,
}

impl Element {
    fn all(&self, name: &str) -> Vec<&Element> {
        self.children.iter().filter(|c| c.name == name).collect()
    }
    fn one(&self, name: &str) -> &Element {
        let v = self.all(name);
        assert_eq!(v.len(), 1, "<{}> must have exactly one <{name}>", self.name);
        v[0]
    }
    fn attr(&self, a: &str) -> &str {
        self.attrs
            .get(a)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("<{}> lacks attribute {a}", self.name))
    }
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Parse a document made of elements, attributes in double quotes and text;
/// panics (failing the test) on unbalanced or malformed tags.
fn parse_xml(doc: &str) -> Element {
    let mut s = doc.trim_start();
    if s.starts_with("<?xml") {
        let end = s.find("?>").expect("xml declaration closes");
        s = &s[end + 2..];
    }
    let mut stack: Vec<Element> = vec![Element {
        name: "#document".into(),
        ..Default::default()
    }];
    while let Some(lt) = s.find('<') {
        let text = &s[..lt];
        if let Some(top) = stack.last_mut() {
            top.text.push_str(&unescape(text.trim()));
        }
        let gt = s[lt..].find('>').expect("tag closes") + lt;
        let tag = &s[lt + 1..gt];
        s = &s[gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let el = stack.pop().expect("balanced");
            assert_eq!(el.name, name.trim(), "closing tag matches");
            stack.last_mut().expect("has parent").children.push(el);
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let mut parts = tag.splitn(2, char::is_whitespace);
        let name = parts.next().expect("tag name").to_string();
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()),
            "tag name {name:?}"
        );
        let mut attrs = HashMap::new();
        let mut rest = parts.next().unwrap_or("").trim();
        while !rest.is_empty() {
            let eq = rest.find('=').expect("attribute has =");
            let key = rest[..eq].trim().to_string();
            let after = rest[eq + 1..].trim_start();
            assert!(after.starts_with('"'), "attribute value quoted");
            let close = after[1..].find('"').expect("quote closes") + 1;
            assert!(
                attrs.insert(key, unescape(&after[1..close])).is_none(),
                "attribute given twice"
            );
            rest = after[close + 1..].trim_start();
        }
        let el = Element {
            name,
            attrs,
            ..Default::default()
        };
        if self_closing {
            stack.last_mut().expect("has parent").children.push(el);
        } else {
            stack.push(el);
        }
    }
    assert!(s.trim().is_empty(), "trailing text");
    assert_eq!(stack.len(), 1, "every element closed");
    let mut doc = stack.pop().expect("document");
    assert_eq!(doc.children.len(), 1, "one root element");
    doc.children.remove(0)
}

/// Check the ptnet structure; returns (places, transitions, arcs, inhibitor arcs).
fn check_ptnet(doc: &str, style: InhibitorStyle) -> (usize, usize, usize, usize) {
    let root = parse_xml(doc);
    assert_eq!(root.name, "pnml");
    assert_eq!(
        root.attr("xmlns"),
        "http://www.pnml.org/version-2009/grammar/pnml"
    );
    let net = root.one("net");
    assert_eq!(
        net.attr("type"),
        "http://www.pnml.org/version-2009/grammar/ptnet"
    );
    let mut ids = HashSet::new();
    assert!(ids.insert(net.attr("id").to_string()));
    net.one("name").one("text");
    let page = net.one("page");
    assert!(ids.insert(page.attr("id").to_string()));
    let mut kinds = HashMap::new();
    for p in page.all("place") {
        assert!(ids.insert(p.attr("id").to_string()), "unique id");
        kinds.insert(p.attr("id").to_string(), "place");
        p.one("name").one("text");
        for m in p.all("initialMarking") {
            assert!(m.one("text").text.parse::<u32>().is_ok_and(|v| v > 0));
        }
    }
    for t in page.all("transition") {
        assert!(ids.insert(t.attr("id").to_string()), "unique id");
        kinds.insert(t.attr("id").to_string(), "transition");
        t.one("name").one("text");
    }
    let mut inhibitors = 0;
    for a in page.all("arc") {
        assert!(ids.insert(a.attr("id").to_string()), "unique id");
        let (src, dst) = (kinds.get(a.attr("source")), kinds.get(a.attr("target")));
        assert!(src.is_some() && dst.is_some(), "arc ends exist");
        assert_ne!(src, dst, "arcs join a place and a transition");
        assert!(
            a.one("inscription")
                .one("text")
                .text
                .parse::<u32>()
                .is_ok_and(|v| v > 0)
        );
        let inhibitor = match style {
            InhibitorStyle::TypeAttribute => a.attrs.get("type").is_some_and(|t| t == "inhibitor"),
            InhibitorStyle::ToolSpecific => a
                .all("toolspecific")
                .iter()
                .any(|ts| ts.attr("tool") == "ptxperf" && ts.one("arcType").text == "inhibitor"),
        };
        if inhibitor {
            assert_eq!(src, Some(&"place"), "inhibitor arcs go from a place");
            inhibitors += 1;
        }
    }
    let unknown: Vec<&str> = page
        .children
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| !["place", "transition", "arc"].contains(n))
        .collect();
    assert!(unknown.is_empty(), "{unknown:?}");
    (
        page.all("place").len(),
        page.all("transition").len(),
        page.all("arc").len(),
        inhibitors,
    )
}

#[test]
fn warp_net_pnml_has_the_ptnet_structure() {
    for n in [1usize, 3] {
        let wnet =
            warp::build(&WarpModelConfig::uniform(n, WarpCounts::new(4, 2, 1))).expect("builds");
        let arcs = wnet.net.arcs().len();
        let inhib = wnet
            .net
            .arcs()
            .iter()
            .filter(|a| a.kind == petri::ArcKind::Inhibitor)
            .count();
        for style in [InhibitorStyle::TypeAttribute, InhibitorStyle::ToolSpecific] {
            let got = check_ptnet(&to_pnml(&wnet.net, style), style);
            assert_eq!(got, (1 + 18 * n, 1 + 17 * n, arcs, inhib));
        }
    }
}

#[test]
fn names_are_escaped_and_markings_and_weights_kept() {
    let mut b = NetBuilder::new("a <net> & \"more\"");
    let p = b.place("p<1>", 3);
    let q = b.place_with_capacity("q'&", 0, Some(5));
    let t = b.transition("t&t");
    b.input(p, t, 2).output(t, q, 3).inhibitor(q, t);
    let net = b.build().expect("valid");
    let doc = to_pnml(&net, InhibitorStyle::TypeAttribute);
    assert_eq!(
        check_ptnet(&doc, InhibitorStyle::TypeAttribute),
        (2, 1, 3, 1)
    );
    let root = parse_xml(&doc);
    let page = root.one("net").one("page");
    assert_eq!(
        root.one("net").one("name").one("text").text,
        "a <net> & \"more\""
    );
    assert_eq!(page.all("place")[0].one("name").one("text").text, "p<1>");
    assert_eq!(
        page.all("place")[0].one("initialMarking").one("text").text,
        "3"
    );
    assert_eq!(page.all("arc")[1].one("inscription").one("text").text, "3");
}

#[test]
fn dot_draws_every_node_and_arc() {
    let mut b = NetBuilder::new("d");
    let p = b.place("p", 2);
    let q = b.place("q", 0);
    let t = b.transition("t");
    b.input(p, t, 2).output(t, q, 1).inhibitor(q, t);
    let dot = to_dot(&b.build().expect("valid"));
    assert!(dot.starts_with("digraph \"d\" {"));
    for needle in [
        "p0 [shape=circle, label=\"p\\n2\"]",
        "t0 [shape=box",
        "p0 -> t0 [label=\"2\"]",
        "t0 -> p1 []",
        "p1 -> t0 [arrowhead=odot]",
    ] {
        assert!(dot.contains(needle), "missing {needle} in\n{dot}");
    }
    assert!(dot.trim_end().ends_with('}'));
}
