//! Gradient-boosted regression trees with histogram splits (squared loss,
//! or Huber loss with [`Params::huber`]).
//!
//! Deliberately small and sequential: every sum runs over the rows in their
//! input order, ties between splits go to the lower feature and the lower
//! bin, and row subsampling draws from [`prng::Rng`] with a fixed seed, so
//! the same data and [`Params`] give the same trees, bit for bit, on any
//! machine and thread count. Thresholds and leaf values are stored as `f32`
//! (the model file stays small) and training uses the stored values, so a
//! loaded model predicts exactly what training saw.

use serde::{Deserialize, Serialize};

use crate::LearnError;

/// Hyper-parameters of one booster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Boosting rounds (one tree each).
    pub trees: usize,
    /// Largest depth of a tree (a root-only tree has depth 0).
    pub depth: usize,
    /// Shrinkage applied to every leaf value.
    pub learning_rate: f64,
    /// Fewest training rows in a leaf.
    pub min_leaf: usize,
    /// Most histogram bins per feature (at least 2).
    pub bins: usize,
    /// L2 penalty on leaf values (added to the row count of a leaf).
    pub lambda: f64,
    /// Share of the rows each tree is grown on, drawn without replacement
    /// (1: every row).
    pub row_fraction: f64,
    /// Seed of the row draws.
    pub seed: u64,
    /// Share of the groups present in a node (see [`fit_grouped`]) whose
    /// own squared loss a split must lower to be taken; 0 takes the split
    /// of largest gain whatever it does to each group.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub consistency: f64,
    /// Huber loss instead of squared loss when above 0: each round, the
    /// residuals beyond this quantile of their absolute values (weighted)
    /// are clipped to it before the tree is grown (Friedman 2001, section
    /// 4.4, with his 0.9), and the start is the weighted median, so a few
    /// rows far from the rest (a data file whose level is off) pull the
    /// trees less. 0: squared loss.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub huber: f64,
}

fn is_zero_f64(x: &f64) -> bool {
    *x == 0.0
}

impl Default for Params {
    fn default() -> Self {
        Params {
            trees: 150,
            // 4 rather than 3: cross-validated on the development part
            // (docs/validation/learned.md, "Hyper-parameters").
            depth: 4,
            learning_rate: 0.08,
            min_leaf: 5,
            bins: 32,
            lambda: 1.0,
            row_fraction: 0.8,
            seed: 1,
            consistency: 0.0,
            huber: 0.0,
        }
    }
}

/// One node: a split when `feature` is set (rows with `x[feature] <=
/// threshold` go to `left`), else a leaf. `value` is what the node would
/// predict as a leaf; per-feature contributions are the changes of `value`
/// along a row's path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    #[serde(rename = "f", default, skip_serializing_if = "Option::is_none")]
    pub feature: Option<usize>,
    #[serde(rename = "t", default, skip_serializing_if = "is_zero")]
    pub threshold: f32,
    #[serde(rename = "l", default, skip_serializing_if = "is_zero_usize")]
    pub left: usize,
    #[serde(rename = "r", default, skip_serializing_if = "is_zero_usize")]
    pub right: usize,
    #[serde(rename = "v")]
    pub value: f32,
    /// Loss reduction of the split (0 for a leaf), for importances.
    #[serde(rename = "g", default, skip_serializing_if = "is_zero")]
    pub gain: f32,
}

fn is_zero(x: &f32) -> bool {
    *x == 0.0
}

fn is_zero_usize(x: &usize) -> bool {
    *x == 0
}

/// One regression tree; node 0 is the root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

impl Tree {
    /// The leaf value for `x`, and the per-feature changes along its path
    /// (added into `contrib`, which must have one slot per feature).
    fn walk(&self, x: &[f64], mut contrib: Option<&mut [f64]>) -> f64 {
        let mut i = 0;
        loop {
            let Some(node) = self.nodes.get(i) else {
                return 0.0;
            };
            let Some(f) = node.feature else {
                return f64::from(node.value);
            };
            let v = x.get(f).copied().unwrap_or(0.0);
            let next = if v <= f64::from(node.threshold) {
                node.left
            } else {
                node.right
            };
            if let (Some(c), Some(child)) = (contrib.as_deref_mut(), self.nodes.get(next))
                && let Some(slot) = c.get_mut(f)
            {
                *slot += f64::from(child.value) - f64::from(node.value);
            }
            if next <= i {
                // A malformed file: never loop.
                return f64::from(node.value);
            }
            i = next;
        }
    }
}

/// A trained booster: `base` plus the sum of its trees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Booster {
    pub base: f64,
    pub trees: Vec<Tree>,
}

impl Booster {
    /// The prediction for one row of features.
    pub fn predict(&self, x: &[f64]) -> f64 {
        self.base + self.trees.iter().map(|t| t.walk(x, None)).sum::<f64>()
    }

    /// The prediction as a bias (the base and the roots' values) plus one
    /// contribution per feature (Saabas: the change of the node value at
    /// each split on the path); they add up to [`Booster::predict`].
    pub fn contributions(&self, x: &[f64], features: usize) -> (f64, Vec<f64>) {
        let mut c = vec![0.0; features];
        let mut bias = self.base;
        for t in &self.trees {
            bias += t.nodes.first().map_or(0.0, |n| f64::from(n.value));
            t.walk(x, Some(&mut c));
        }
        (bias, c)
    }

    /// Total split gain per feature.
    pub fn gains(&self, features: usize) -> Vec<f64> {
        let mut g = vec![0.0; features];
        for n in self.trees.iter().flat_map(|t| &t.nodes) {
            if let Some(slot) = n.feature.and_then(|f| g.get_mut(f)) {
                *slot += f64::from(n.gain);
            }
        }
        g
    }
}

/// Bin edges of one feature: up to `bins - 1` cut points (as `f32`, then
/// widened) between distinct training values, at their quantiles.
fn cuts(values: &[f64], bins: usize) -> Vec<f64> {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.dedup();
    if v.len() < 2 {
        return Vec::new();
    }
    let mids: Vec<f64> = v.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    let wanted = bins.max(2) - 1;
    let picked: Vec<f64> = if mids.len() <= wanted {
        mids
    } else {
        (1..=wanted)
            .map(|k| mids[(k * mids.len()) / (wanted + 1)])
            .collect()
    };
    let mut out: Vec<f64> = picked.into_iter().map(|c| f64::from(c as f32)).collect();
    out.dedup();
    out
}

/// Rows of one node being grown.
struct Grow<'a> {
    binned: &'a [Vec<u16>],
    cuts: &'a [Vec<f64>],
    /// Weighted residuals, `weight * (y - prediction)` per row.
    residual: &'a [f64],
    weight: &'a [f64],
    /// Group of each row (dense, from 0); read only when
    /// `params.consistency` is above 0.
    group: &'a [usize],
    groups: usize,
    params: &'a Params,
    nodes: Vec<Node>,
}

/// Weighted squared loss removed from rows whose weighted residuals sum to
/// `g` and weights to `h` when `v` is added to their prediction.
fn loss_drop(v: f64, g: f64, h: f64) -> f64 {
    2.0 * v * g - v * v * h
}

impl Grow<'_> {
    /// Sums of the weighted residuals and of the weights of `rows`.
    fn sums(&self, rows: &[usize]) -> (f64, f64) {
        rows.iter().fold((0.0, 0.0), |(g, h), &r| {
            (g + self.residual[r], h + self.weight[r])
        })
    }

    fn leaf_value(&self, rows: &[usize]) -> f32 {
        let (g, h) = self.sums(rows);
        (self.params.learning_rate * g / (h + self.params.lambda)) as f32
    }

    /// Grow the node for `rows` at `depth`; returns its index.
    fn node(&mut self, rows: Vec<usize>, depth: usize) -> usize {
        let me = self.nodes.len();
        let value = self.leaf_value(&rows);
        self.nodes.push(Node {
            feature: None,
            threshold: 0.0,
            left: 0,
            right: 0,
            value,
            gain: 0.0,
        });
        let p = self.params;
        let min_leaf = p.min_leaf.max(1);
        if depth >= p.depth || rows.len() < 2 * min_leaf {
            return me;
        }
        let (g, h) = self.sums(&rows);
        let parent = g * g / (h + p.lambda);
        // Each group's totals in the node, once for every feature.
        let totals = (p.consistency > 0.0 && self.groups > 1).then(|| {
            let mut t = vec![(0.0, 0.0); self.groups];
            for &r in &rows {
                t[self.group[r]].0 += self.residual[r];
                t[self.group[r]].1 += self.weight[r];
            }
            t
        });
        // (gain, feature, bin)
        let mut best: Option<(f64, usize, usize)> = None;
        for (f, fc) in self.cuts.iter().enumerate() {
            if fc.is_empty() {
                continue;
            }
            let mut sum = vec![0.0; fc.len() + 1];
            let mut weight = vec![0.0; fc.len() + 1];
            let mut count = vec![0usize; fc.len() + 1];
            for &r in &rows {
                let b = usize::from(self.binned[f][r]);
                sum[b] += self.residual[r];
                weight[b] += self.weight[r];
                count[b] += 1;
            }
            let mut by_group = totals
                .as_deref()
                .map(|t| GroupSums::new(self, &rows, f, fc.len() + 1, t));
            let (mut gl, mut hl, mut nl) = (0.0, 0.0, 0usize);
            for b in 0..fc.len() {
                gl += sum[b];
                hl += weight[b];
                nl += count[b];
                if let Some(s) = by_group.as_mut() {
                    s.take_bin(b);
                }
                let nr = rows.len() - nl;
                if nl < min_leaf || nr < min_leaf {
                    continue;
                }
                let (gr, hr) = (g - gl, h - hl);
                let gain = gl * gl / (hl + p.lambda) + gr * gr / (hr + p.lambda) - parent;
                if gain > 1e-12
                    && best.is_none_or(|(bg, _, _)| gain > bg)
                    && by_group.as_ref().is_none_or(|s| {
                        s.consistent(
                            p.learning_rate / (hl + p.lambda) * gl,
                            p.learning_rate / (hr + p.lambda) * gr,
                            p.learning_rate / (h + p.lambda) * g,
                            p.consistency,
                        )
                    })
                {
                    best = Some((gain, f, b));
                }
            }
        }
        let Some((gain, f, b)) = best else {
            return me;
        };
        let (left, right): (Vec<usize>, Vec<usize>) = rows
            .iter()
            .partition(|&&r| usize::from(self.binned[f][r]) <= b);
        let l = self.node(left, depth + 1);
        let r = self.node(right, depth + 1);
        let node = &mut self.nodes[me];
        node.feature = Some(f);
        node.threshold = self.cuts[f][b] as f32;
        node.left = l;
        node.right = r;
        node.gain = gain as f32;
        me
    }
}

/// Per-group sums of one feature's histogram in one node, and the running
/// sums left of the bin being scanned.
struct GroupSums<'t> {
    groups: usize,
    /// `[bin * groups + group]`: weighted residuals and weights.
    sum: Vec<f64>,
    weight: Vec<f64>,
    /// Each group's totals in the node.
    total: &'t [(f64, f64)],
    /// Each group's sums in the bins scanned so far (the left child).
    left: Vec<(f64, f64)>,
}

impl<'t> GroupSums<'t> {
    fn new(
        grow: &Grow<'_>,
        rows: &[usize],
        feature: usize,
        bins: usize,
        total: &'t [(f64, f64)],
    ) -> GroupSums<'t> {
        let groups = grow.groups;
        let mut sum = vec![0.0; bins * groups];
        let mut weight = vec![0.0; bins * groups];
        for &r in rows {
            let (b, k) = (usize::from(grow.binned[feature][r]), grow.group[r]);
            sum[b * groups + k] += grow.residual[r];
            weight[b * groups + k] += grow.weight[r];
        }
        GroupSums {
            groups,
            sum,
            weight,
            total,
            left: vec![(0.0, 0.0); groups],
        }
    }

    fn take_bin(&mut self, bin: usize) {
        for (k, l) in self.left.iter_mut().enumerate() {
            l.0 += self.sum[bin * self.groups + k];
            l.1 += self.weight[bin * self.groups + k];
        }
    }

    /// Whether leaf values `left` and `right` (instead of `parent` for the
    /// whole node) lower the loss of at least `share` of the groups present.
    fn consistent(&self, left: f64, right: f64, parent: f64, share: f64) -> bool {
        let (mut present, mut better) = (0usize, 0usize);
        for (&(gl, hl), &(g, h)) in self.left.iter().zip(self.total) {
            if h <= 0.0 {
                continue;
            }
            present += 1;
            let split = loss_drop(left, gl, hl) + loss_drop(right, g - gl, h - hl);
            if split > loss_drop(parent, g, h) {
                better += 1;
            }
        }
        better as f64 >= share * present as f64
    }
}

/// Fit a booster to rows `x` (each of the same length) and targets `y`,
/// every row weighing the same.
pub fn fit(x: &[Vec<f64>], y: &[f64], params: &Params) -> Result<Booster, LearnError> {
    fit_weighted(x, y, &vec![1.0; x.len()], params)
}

/// Fit a booster where row `i` weighs `w[i]` in the squared loss (a leaf's
/// value is its rows' weighted mean residual, shrunk by `lambda`). Weights
/// of 1 give [`fit`]'s trees bit for bit: a sum of ones is exact.
pub fn fit_weighted(
    x: &[Vec<f64>],
    y: &[f64],
    w: &[f64],
    params: &Params,
) -> Result<Booster, LearnError> {
    fit_grouped(x, y, w, &vec![0; x.len()], params)
}

/// [`fit_weighted`] where row `i` belongs to group `group[i]` (a data file,
/// a GPU): with `params.consistency` above 0 a split is taken only if it
/// lowers the loss within that share of the groups in the node, so the
/// trees keep what holds across groups rather than what one group's rows
/// gain most from (the idea of a split that must hold on separate parts of
/// the data, as in PerpetualBooster's generalisation control).
pub fn fit_grouped(
    x: &[Vec<f64>],
    y: &[f64],
    w: &[f64],
    group: &[usize],
    params: &Params,
) -> Result<Booster, LearnError> {
    let n = x.len();
    if group.len() != n {
        return Err(LearnError::Data(format!(
            "{n} feature rows and {} groups: need one group per row",
            group.len()
        )));
    }
    let groups = group.iter().max().map_or(0, |m| m + 1);
    if groups > n {
        return Err(LearnError::Data(format!(
            "group ids must be dense (0 to the number of groups - 1), got {}",
            groups - 1
        )));
    }
    if n == 0 || n != y.len() || n != w.len() {
        return Err(LearnError::Data(format!(
            "{n} feature rows, {} targets and {} weights: need the same number, at least one",
            y.len(),
            w.len()
        )));
    }
    if let Some(i) = (0..n).find(|&i| !(w[i].is_finite() && w[i] > 0.0)) {
        return Err(LearnError::Data(format!(
            "row {i} has weight {}: weights must be positive and finite",
            w[i]
        )));
    }
    let width = x[0].len();
    if let Some((i, row)) = x.iter().enumerate().find(|(_, r)| r.len() != width) {
        return Err(LearnError::Data(format!(
            "row {i} has {} features, row 0 has {width}",
            row.len()
        )));
    }
    if let Some(i) = (0..n).find(|&i| !y[i].is_finite() || x[i].iter().any(|v| !v.is_finite())) {
        return Err(LearnError::Data(format!(
            "row {i} has a target or feature that is not finite"
        )));
    }
    if !(params.row_fraction > 0.0 && params.row_fraction <= 1.0) || params.bins > 65_535 {
        return Err(LearnError::Data(format!(
            "row_fraction must be in (0, 1] and bins at most 65535, got {} and {}",
            params.row_fraction, params.bins
        )));
    }
    if !(0.0..1.0).contains(&params.huber) {
        return Err(LearnError::Data(format!(
            "huber is a quantile in [0, 1) (0: squared loss), got {}",
            params.huber
        )));
    }
    let cuts: Vec<Vec<f64>> = (0..width)
        .map(|f| cuts(&x.iter().map(|r| r[f]).collect::<Vec<_>>(), params.bins))
        .collect();
    let binned: Vec<Vec<u16>> = (0..width)
        .map(|f| {
            x.iter()
                .map(|r| cuts[f].partition_point(|&c| c < r[f]) as u16)
                .collect()
        })
        .collect();
    let huber = params.huber > 0.0;
    let base = if huber {
        weighted_quantile(y.iter().copied().zip(w.iter().copied()), 0.5)
    } else {
        y.iter().zip(w).map(|(y, w)| w * y).sum::<f64>() / w.iter().sum::<f64>()
    };
    let mut pred = vec![base; n];
    let mut rng = prng::Rng::new(params.seed);
    let take = ((n as f64 * params.row_fraction).round() as usize).clamp(1, n);
    let mut trees = Vec::with_capacity(params.trees);
    for _ in 0..params.trees {
        let mut residual: Vec<f64> = (0..n).map(|i| y[i] - pred[i]).collect();
        if huber {
            let delta = weighted_quantile(
                residual.iter().map(|r| r.abs()).zip(w.iter().copied()),
                params.huber,
            );
            for r in &mut residual {
                *r = r.clamp(-delta, delta);
            }
        }
        for (r, w) in residual.iter_mut().zip(w) {
            *r *= w;
        }
        let rows: Vec<usize> = if take == n {
            (0..n).collect()
        } else {
            // A partial Fisher-Yates shuffle, then the rows in input order.
            let mut all: Vec<usize> = (0..n).collect();
            for i in 0..take {
                let j = i + prng::below_u64((n - i) as u64, || rng.next_u64()) as usize;
                all.swap(i, j);
            }
            let mut chosen = all[..take].to_vec();
            chosen.sort_unstable();
            chosen
        };
        let mut grow = Grow {
            binned: &binned,
            cuts: &cuts,
            residual: &residual,
            weight: w,
            group,
            groups,
            params,
            nodes: Vec::new(),
        };
        grow.node(rows, 0);
        let tree = Tree { nodes: grow.nodes };
        for (i, p) in pred.iter_mut().enumerate() {
            *p += tree.walk(&x[i], None);
        }
        trees.push(tree);
    }
    Ok(Booster { base, trees })
}

/// The smallest value whose share of the total weight at or below it
/// reaches `q` (ties in input order; the sort is stable).
fn weighted_quantile(values: impl Iterator<Item = (f64, f64)>, q: f64) -> f64 {
    let mut v: Vec<(f64, f64)> = values.collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|p| p.1).sum();
    let mut acc = 0.0;
    for &(x, w) in &v {
        acc += w;
        if acc >= q * total {
            return x;
        }
    }
    v.last().map_or(0.0, |p| p.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize) -> (Vec<Vec<f64>>, Vec<f64>) {
        let mut rng = prng::Rng::new(7);
        let mut x = Vec::new();
        let mut y = Vec::new();
        for _ in 0..n {
            let a = rng.next_f64() * 4.0;
            let b = rng.next_f64();
            let noise = rng.next_f64() * 0.01;
            x.push(vec![a, b, noise]);
            y.push(if a > 2.0 { 1.0 } else { 0.0 } + 0.5 * b);
        }
        (x, y)
    }

    #[test]
    fn learns_a_step_and_a_slope() {
        let (x, y) = data(400);
        let b = fit(&x, &y, &Params::default()).expect("fit");
        let err: f64 = x
            .iter()
            .zip(&y)
            .map(|(r, t)| (b.predict(r) - t).abs())
            .sum::<f64>()
            / y.len() as f64;
        assert!(err < 0.06, "mean abs error {err}");
        let g = b.gains(3);
        assert!(g[0] > g[1] && g[1] > g[2], "gains {g:?}");
    }

    #[test]
    fn huber_loss_holds_out_the_rows_far_off() {
        // A step in x plus a tenth of the rows shifted by 5 (a data file
        // whose level is off): squared loss bends the clean rows towards
        // the shift, the Huber loss much less.
        let (x, mut y) = data(400);
        let clean = y.clone();
        for (i, t) in y.iter_mut().enumerate() {
            if i % 10 == 0 {
                *t += 5.0;
            }
        }
        let err = |b: &Booster| {
            (0..x.len())
                .filter(|i| i % 10 != 0)
                .map(|i| (b.predict(&x[i]) - clean[i]).abs())
                .sum::<f64>()
                / 360.0
        };
        let squared = fit(&x, &y, &Params::default()).expect("fit");
        let huber = fit(
            &x,
            &y,
            &Params {
                huber: 0.8,
                ..Params::default()
            },
        )
        .expect("fit");
        let (e_sq, e_hu) = (err(&squared), err(&huber));
        assert!(e_sq > 0.3, "squared loss error on the clean rows {e_sq}");
        assert!(e_hu < 0.5 * e_sq, "huber {e_hu} against squared {e_sq}");
        // The start is the weighted median, not the mean.
        assert!(
            huber.base < squared.base - 0.15,
            "{} {}",
            huber.base,
            squared.base
        );
        for bad in [-0.1, 1.0, f64::NAN] {
            let p = Params {
                huber: bad,
                ..Params::default()
            };
            assert!(fit(&x, &y, &p).is_err(), "huber {bad} is refused");
        }
    }

    #[test]
    fn weighted_quantiles() {
        let q = |v: &[(f64, f64)], q: f64| weighted_quantile(v.iter().copied(), q);
        assert_eq!(q(&[(3.0, 1.0), (1.0, 1.0), (2.0, 1.0)], 0.5), 2.0);
        assert_eq!(q(&[(3.0, 1.0), (1.0, 1.0), (2.0, 1.0)], 0.9), 3.0);
        assert_eq!(q(&[(1.0, 1.0), (2.0, 3.0)], 0.5), 2.0);
        assert_eq!(q(&[(1.0, 3.0), (2.0, 1.0)], 0.5), 1.0);
        assert_eq!(q(&[], 0.5), 0.0);
    }

    #[test]
    fn contributions_add_up() {
        let (x, y) = data(200);
        let b = fit(&x, &y, &Params::default()).expect("fit");
        for r in x.iter().take(20) {
            let (bias, c) = b.contributions(r, 3);
            let total = bias + c.iter().sum::<f64>();
            assert!(
                (total - b.predict(r)).abs() < 1e-9,
                "{total} vs {}",
                b.predict(r)
            );
        }
    }

    #[test]
    fn same_data_same_trees_and_a_round_trip() {
        let (x, y) = data(150);
        let a = fit(&x, &y, &Params::default()).expect("fit");
        let b = fit(&x, &y, &Params::default()).expect("fit");
        assert_eq!(a, b);
        let text = serde_json::to_string(&a).expect("json");
        let back: Booster = serde_json::from_str(&text).expect("parse");
        for r in &x {
            assert_eq!(a.predict(r).to_bits(), back.predict(r).to_bits());
        }
        let other = fit(
            &x,
            &y,
            &Params {
                seed: 2,
                ..Params::default()
            },
        )
        .expect("fit");
        assert_ne!(a, other, "another seed draws other rows");
    }

    #[test]
    fn unit_weights_are_the_unweighted_fit_and_weights_steer_it() {
        let (x, y) = data(200);
        let plain = fit(&x, &y, &Params::default()).expect("fit");
        let ones = fit_weighted(&x, &y, &vec![1.0; y.len()], &Params::default()).expect("fit");
        assert_eq!(plain, ones);
        // Two groups that disagree: the heavier one wins the constant.
        let x = vec![vec![0.0]; 40];
        let y: Vec<f64> = (0..40).map(|i| if i < 10 { 1.0 } else { 0.0 }).collect();
        let w: Vec<f64> = (0..40).map(|i| if i < 10 { 3.0 } else { 1.0 }).collect();
        let even = fit(&x, &y, &Params::default()).expect("fit");
        let heavy = fit_weighted(&x, &y, &w, &Params::default()).expect("fit");
        // The base is the (weighted) mean; the trees, grown on row draws,
        // wander a little around it.
        assert!((even.base - 0.25).abs() < 1e-12, "{}", even.base);
        assert!((heavy.base - 0.5).abs() < 1e-12, "{}", heavy.base);
        assert!((even.predict(&[0.0]) - 0.25).abs() < 0.05);
        assert!((heavy.predict(&[0.0]) - 0.5).abs() < 0.05);
    }

    #[test]
    fn bad_input_is_an_error() {
        let p = Params::default();
        assert!(fit(&[], &[], &p).is_err());
        assert!(fit(&[vec![1.0], vec![1.0, 2.0]], &[1.0, 2.0], &p).is_err());
        assert!(fit(&[vec![f64::NAN]], &[1.0], &p).is_err());
        assert!(fit_weighted(&[vec![1.0]], &[1.0], &[0.0], &p).is_err());
        assert!(fit_weighted(&[vec![1.0]], &[1.0], &[], &p).is_err());
        assert!(
            fit(
                &[vec![1.0]],
                &[1.0],
                &Params {
                    row_fraction: 0.0,
                    ..p
                }
            )
            .is_err()
        );
    }

    #[test]
    fn constant_data_is_one_leaf() {
        let x = vec![vec![1.0, 2.0]; 30];
        let y = vec![3.0; 30];
        let b = fit(&x, &y, &Params::default()).expect("fit");
        assert!(b.trees.iter().all(|t| t.nodes.len() == 1));
        assert_eq!(b.predict(&[1.0, 2.0]), 3.0);
    }

    /// Rows of two groups on features (x, group id): group 0 steps up by 1
    /// at x = 2, group 1 steps by `other_step`.
    fn two_groups(other_step: f64) -> (Vec<Vec<f64>>, Vec<f64>, Vec<usize>) {
        let (mut x, mut y, mut g) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..200_u32 {
            let a = f64::from(i % 100) / 25.0;
            let k = (i / 100) as usize;
            let step = if k == 0 { 1.0 } else { other_step };
            x.push(vec![a, k as f64]);
            y.push(if a > 2.0 { step } else { 0.0 });
            g.push(k);
        }
        (x, y, g)
    }

    fn mean_abs_error(b: &Booster, x: &[Vec<f64>], y: &[f64]) -> f64 {
        x.iter()
            .zip(y)
            .map(|(r, t)| (b.predict(r) - t).abs())
            .sum::<f64>()
            / y.len() as f64
    }

    #[test]
    fn consistency_zero_is_the_weighted_fit() {
        let (x, y, g) = two_groups(-1.0);
        let w = vec![1.0; y.len()];
        let plain = fit_weighted(&x, &y, &w, &Params::default()).expect("fit");
        let grouped = fit_grouped(&x, &y, &w, &g, &Params::default()).expect("fit");
        assert_eq!(plain, grouped);
    }

    #[test]
    fn a_split_must_hold_in_the_groups() {
        let w = vec![1.0; 200];
        // Every row in every tree: a row draw can leave a group out of a
        // leaf, and a group that is absent is not asked.
        let all = Params {
            consistency: 1.0,
            row_fraction: 1.0,
            ..Params::default()
        };
        // The same step in both groups: every split on x helps both.
        let (x, y, g) = two_groups(1.0);
        let b = fit_grouped(&x, &y, &w, &g, &all).expect("fit");
        assert!(mean_abs_error(&b, &x, &y) < 0.05);
        // Opposite steps: a split on x alone helps one group and harms the
        // other, so the trees first separate the groups (a split that
        // helps both), then learn each group's step below it.
        let (x, y, g) = two_groups(-1.0);
        let b = fit_grouped(&x, &y, &w, &g, &all).expect("fit");
        assert!(mean_abs_error(&b, &x, &y) < 0.05);
        assert_eq!(
            b.trees[0].nodes[0].feature,
            Some(1),
            "the first root splits on the group, not on x"
        );
        // Without the group as a feature, steps of 1 and -0.5: every split
        // on x moves group 1 towards group 0's step, so none is taken,
        // where the plain fit splits.
        let (x, y, g) = two_groups(-0.5);
        let x1: Vec<Vec<f64>> = x.iter().map(|r| vec![r[0]]).collect();
        let b = fit_grouped(&x1, &y, &w, &g, &all).expect("fit");
        assert!(b.trees.iter().all(|t| t.nodes.len() == 1));
        let free = fit_grouped(
            &x1,
            &y,
            &w,
            &g,
            &Params {
                row_fraction: 1.0,
                ..Params::default()
            },
        )
        .expect("fit");
        assert!(free.trees.iter().any(|t| t.nodes.len() > 1));
    }

    #[test]
    fn groups_must_be_one_per_row_and_dense() {
        let (x, y, _) = two_groups(1.0);
        let w = vec![1.0; y.len()];
        assert!(fit_grouped(&x, &y, &w, &[0; 3], &Params::default()).is_err());
        let mut g = vec![0; y.len()];
        g[0] = 10_000;
        assert!(fit_grouped(&x, &y, &w, &g, &Params::default()).is_err());
    }
}
