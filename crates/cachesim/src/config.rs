//! Cache configuration: the geometry of each level and the policies the
//! simulator applies. Every default is documented with its source, or marked
//! as an assumption (the crate docs list them all).

use serde::{Deserialize, Serialize};

use crate::error::CacheSimError;
use crate::request::TRACE_SECTOR_BYTES;

/// Largest number of lines one cache may have (2^24: 2 GiB of 128 B lines).
pub const MAX_LINES: u64 = 1 << 24;

/// The shape of one set-associative, sectored cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheGeometry {
    /// Capacity in bytes; must equal `sets * ways * line_bytes` for a whole number of sets.
    pub size_bytes: u64,
    /// Line (tag) size in bytes, a power of two.
    pub line_bytes: u32,
    /// Sector (fill/valid) size in bytes: a power of two, at least 32, dividing the line,
    /// with at most 32 sectors per line.
    pub sector_bytes: u32,
    /// Associativity (ways per set).
    pub ways: u32,
    /// How a line number chooses its set.
    #[serde(default)]
    pub index: SetIndex,
}

/// How a cache maps a line number to a set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SetIndex {
    /// The line number modulo the number of sets: a unit-stride stream fills
    /// every set evenly, and a stride of a multiple of the set count puts
    /// every line into one set.
    #[default]
    Modulo,
    /// The line number modulo the sets, rotated by a hash of the quotient
    /// (line / sets). A run of consecutive lines still fills distinct sets
    /// (within one quotient the rotation is a bijection), while lines a
    /// power-of-two stride apart, which modulo indexing stacks into a few
    /// sets, spread over all of them. GPUs hash L2 addresses so: Accel-Sim's
    /// validated configurations index the L2 sets with a polynomial hash
    /// (`-gpgpu_cache:dl2 ...,L:B:m:L:P` for the QV100, RTX 2060 and
    /// RTX 3070; `P` = polynomial) and the L1 sets linearly (`L`); the hash
    /// here is ours, with the same two properties.
    Hashed,
}

impl CacheGeometry {
    /// Number of sets (`size / (ways * line)`); valid only after [`CacheGeometry::validate`].
    pub fn sets(&self) -> u64 {
        let per_set = u64::from(self.ways) * u64::from(self.line_bytes);
        self.size_bytes.checked_div(per_set).unwrap_or(0)
    }

    /// Checks the invariants the tag store relies on.
    pub fn validate(&self, level: &'static str) -> Result<(), CacheSimError> {
        let bad = |reason: String| Err(CacheSimError::Geometry { level, reason });
        if !self.line_bytes.is_power_of_two() {
            return bad(format!(
                "line of {} B is not a power of two",
                self.line_bytes
            ));
        }
        if !self.sector_bytes.is_power_of_two() || self.sector_bytes < TRACE_SECTOR_BYTES {
            return bad(format!(
                "sector of {} B must be a power of two of at least {TRACE_SECTOR_BYTES} B",
                self.sector_bytes
            ));
        }
        if self.sector_bytes > self.line_bytes {
            return bad(format!(
                "sector of {} B is larger than the line of {} B",
                self.sector_bytes, self.line_bytes
            ));
        }
        if self.line_bytes / self.sector_bytes > 32 {
            return bad("more than 32 sectors per line".to_string());
        }
        if self.ways == 0 {
            return bad("zero ways".to_string());
        }
        let per_set = u64::from(self.ways) * u64::from(self.line_bytes);
        if self.size_bytes == 0 || !self.size_bytes.is_multiple_of(per_set) {
            return bad(format!(
                "size of {} B is not a positive multiple of ways x line = {per_set} B",
                self.size_bytes
            ));
        }
        // Bounds the tag store's memory (about 24 B per line).
        if self.size_bytes / u64::from(self.line_bytes) > MAX_LINES {
            return bad(format!("more than {MAX_LINES} lines"));
        }
        Ok(())
    }
}

/// Where `ld.global.nc` / `__ldg` loads are cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadOnlyPath {
    /// Through the unified L1/texture cache, always allocating (Volta and later:
    /// the texture cache and L1 are one array; Volta tuning guide, "Unified
    /// Shared Memory/L1/Texture Cache").
    ThroughL1,
    /// A separate per-SM read-only/texture cache (Kepler/Maxwell style).
    Separate(CacheGeometry),
}

/// The whole memory hierarchy the simulator models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheConfig {
    /// Per-SM L1 data cache (the part of the L1/shared array left for caching).
    pub l1: CacheGeometry,
    /// Whether `ld.global` (default cache operator `.ca`) allocates in L1. True on
    /// sm_70+ by default; false models `-Xptxas -dlcm=cg` or Maxwell/Pascal
    /// GeForce parts that cache global loads in L2 only.
    pub global_loads_allocate_l1: bool,
    /// Where the read-only (`ld.global.nc`) path is cached.
    pub readonly: ReadOnlyPath,
    /// Per-SM constant cache (always separate from L1).
    pub constant: CacheGeometry,
    /// The L2 shared by all SMs (sectored, write-back, write-allocate).
    pub l2: CacheGeometry,
    /// Bytes fetched from DRAM on an L2 read miss: the missing sector plus the other
    /// sectors of the aligned block of this size (32 = sector only; 64 models the
    /// `cudaLimitMaxL2FetchGranularity` prefetch). A power of two between the L2
    /// sector and line sizes.
    pub l2_fill_bytes: u32,
    /// Count dirty L2 sectors left at the end of the kernel as DRAM writes (they
    /// are written back eventually). True by default.
    pub flush_l2_at_end: bool,
}

impl CacheConfig {
    /// A Volta-and-later style hierarchy with the given L1 (per SM) and L2 sizes.
    ///
    /// Lines of 128 B with 32 B sectors in L1 and L2 (CUDA programming guide,
    /// compute capability 7.x+: "memory transactions of 32-byte sectors"; Nsight
    /// Compute kernel profiling guide, L1TEX/L2 sector = 32 B, line = 128 B).
    /// Associativity: L1 4 ways, L2 16 ways, constant cache 2 KiB / 64 B lines /
    /// 4 ways are ASSUMPTIONS (NVIDIA documents none; the sizes here are inputs).
    /// The caller rounds the sizes to a multiple of `ways * 128`.
    pub fn sm70_like(l1_bytes: u64, l2_bytes: u64) -> CacheConfig {
        CacheConfig {
            l1: CacheGeometry {
                size_bytes: l1_bytes,
                line_bytes: 128,
                sector_bytes: 32,
                ways: 4,
                index: SetIndex::Modulo,
            },
            global_loads_allocate_l1: true,
            readonly: ReadOnlyPath::ThroughL1,
            constant: CacheGeometry {
                size_bytes: 2048,
                line_bytes: 64,
                sector_bytes: 64,
                ways: 4,
                index: SetIndex::Modulo,
            },
            l2: CacheGeometry {
                size_bytes: l2_bytes,
                line_bytes: 128,
                sector_bytes: 32,
                ways: 16,
                index: SetIndex::Hashed,
            },
            l2_fill_bytes: 32,
            flush_l2_at_end: true,
        }
    }

    /// Checks every level and field.
    pub fn validate(&self) -> Result<(), CacheSimError> {
        self.l1.validate("L1")?;
        self.constant.validate("constant cache")?;
        self.l2.validate("L2")?;
        if let ReadOnlyPath::Separate(g) = self.readonly {
            g.validate("read-only cache")?;
        }
        let fill = self.l2_fill_bytes;
        if !fill.is_power_of_two() || fill < self.l2.sector_bytes || fill > self.l2.line_bytes {
            return Err(CacheSimError::Config(format!(
                "l2_fill_bytes = {fill} must be a power of two between the L2 sector ({}) and line ({}) sizes",
                self.l2.sector_bytes, self.l2.line_bytes
            )));
        }
        Ok(())
    }
}
