//! AQL kernel dispatch packets (`hsa_kernel_dispatch_packet_t`) and the
//! grid geometry they describe: read and written as their 64 bytes, sizes
//! validated, work-groups (partial ones included) counted and numbered.
//! The runtime, the emulator, the capsule format and the tool library all
//! read packets through this one type.

/// Size of an AQL packet.
pub const AQL_PACKET_SIZE: usize = 64;
/// `hsa_kernel_dispatch_packet_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AqlDispatch {
    /// Packet header (type, barrier, acquire/release fences).
    pub header: u16,
    /// Dimensions in bits 0–1.
    pub setup: u16,
    /// Work-group size per dimension.
    pub workgroup_size: [u16; 3],
    /// Grid size in work-items per dimension.
    pub grid_size: [u32; 3],
    /// Scratch bytes per work-item requested.
    pub private_segment_size: u32,
    /// LDS bytes (static + dynamic).
    pub group_segment_size: u32,
    /// Device address of the kernel descriptor.
    pub kernel_object: u64,
    /// Device address of the kernarg segment.
    pub kernarg_address: u64,
    /// Completion signal handle.
    pub completion_signal: u64,
}

impl AqlDispatch {
    /// Reads a packet from its 64 bytes.
    pub fn from_bytes(b: &[u8; AQL_PACKET_SIZE]) -> Self {
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| u64::from(u32_at(o)) | (u64::from(u32_at(o + 4)) << 32);
        AqlDispatch {
            header: u16_at(0),
            setup: u16_at(2),
            workgroup_size: [u16_at(4), u16_at(6), u16_at(8)],
            grid_size: [u32_at(12), u32_at(16), u32_at(20)],
            private_segment_size: u32_at(24),
            group_segment_size: u32_at(28),
            kernel_object: u64_at(32),
            kernarg_address: u64_at(40),
            completion_signal: u64_at(56),
        }
    }

    /// The packet's 64 bytes.
    pub fn to_bytes(&self) -> [u8; AQL_PACKET_SIZE] {
        let mut b = [0u8; AQL_PACKET_SIZE];
        b[0..2].copy_from_slice(&self.header.to_le_bytes());
        b[2..4].copy_from_slice(&self.setup.to_le_bytes());
        for i in 0..3 {
            b[4 + 2 * i..6 + 2 * i].copy_from_slice(&self.workgroup_size[i].to_le_bytes());
            b[12 + 4 * i..16 + 4 * i].copy_from_slice(&self.grid_size[i].to_le_bytes());
        }
        b[24..28].copy_from_slice(&self.private_segment_size.to_le_bytes());
        b[28..32].copy_from_slice(&self.group_segment_size.to_le_bytes());
        b[32..40].copy_from_slice(&self.kernel_object.to_le_bytes());
        b[40..48].copy_from_slice(&self.kernarg_address.to_le_bytes());
        b[56..64].copy_from_slice(&self.completion_signal.to_le_bytes());
        b
    }

    /// Number of dimensions (1–3).
    pub fn dims(&self) -> u32 {
        u32::from(self.setup & 3)
    }

    /// The grid geometry, validated.
    pub fn geometry(&self) -> Result<Geometry, GeometryError> {
        Geometry::new(
            self.grid_size,
            self.workgroup_size.map(u32::from),
            self.dims(),
        )
    }
}

/// Why a grid is not dispatchable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// Dimensions outside 1–3.
    #[error("dispatch has {0} dimensions (must be 1, 2 or 3)")]
    Dims(u32),
    /// A zero size.
    #[error("{what} size is zero in dimension {dim}")]
    Zero {
        /// `grid` or `work-group`.
        what: &'static str,
        /// Dimension.
        dim: usize,
    },
    /// More than 1024 work-items per work-group.
    #[error("work-group of {0} work-items exceeds 1024")]
    WorkgroupTooLarge(u64),
    /// An unused dimension is not 1.
    #[error("dimension {dim} is unused but its {what} size is {size}, not 1")]
    UnusedDim {
        /// Dimension.
        dim: usize,
        /// `grid` or `work-group`.
        what: &'static str,
        /// The size.
        size: u32,
    },
}

/// Grid and work-group sizes of a dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Work-items per dimension.
    pub grid: [u32; 3],
    /// Work-group size per dimension.
    pub workgroup: [u32; 3],
    /// Dimensions used.
    pub dims: u32,
}

impl Geometry {
    /// Validates sizes.
    pub fn new(grid: [u32; 3], workgroup: [u32; 3], dims: u32) -> Result<Self, GeometryError> {
        if !(1..=3).contains(&dims) {
            return Err(GeometryError::Dims(dims));
        }
        for d in 0..3 {
            if grid[d] == 0 {
                return Err(GeometryError::Zero {
                    what: "grid",
                    dim: d,
                });
            }
            if workgroup[d] == 0 {
                return Err(GeometryError::Zero {
                    what: "work-group",
                    dim: d,
                });
            }
            if d as u32 >= dims {
                if grid[d] != 1 {
                    return Err(GeometryError::UnusedDim {
                        dim: d,
                        what: "grid",
                        size: grid[d],
                    });
                }
                if workgroup[d] != 1 {
                    return Err(GeometryError::UnusedDim {
                        dim: d,
                        what: "work-group",
                        size: workgroup[d],
                    });
                }
            }
        }
        let items: u64 = workgroup.iter().map(|&x| u64::from(x)).product();
        if items > 1024 {
            return Err(GeometryError::WorkgroupTooLarge(items));
        }
        Ok(Geometry {
            grid,
            workgroup,
            dims,
        })
    }

    /// Work-groups per dimension (a trailing partial one included).
    pub fn workgroup_count(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.grid[d].div_ceil(self.workgroup[d]))
    }

    /// Whole work-groups per dimension (a trailing partial one not
    /// counted), as the runtime writes the `hidden_block_count_*`
    /// arguments: the device library reads a group's size as
    /// `id < count ? size : remainder`.
    pub fn full_workgroup_count(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.grid[d] / self.workgroup[d])
    }

    /// Total number of work-groups.
    pub fn total_workgroups(&self) -> u64 {
        self.workgroup_count()
            .iter()
            .map(|&x| u64::from(x))
            .product()
    }

    /// The size of work-group `id`: the full size, or the remainder for the
    /// last, partial work-group of a dimension.
    pub fn workgroup_size_of(&self, id: [u32; 3]) -> [u32; 3] {
        [0, 1, 2].map(|d| {
            let start = id[d] * self.workgroup[d];
            (self.grid[d] - start).min(self.workgroup[d])
        })
    }

    /// Work-group ID of linear index `i` (x fastest).
    pub fn workgroup_id(&self, i: u64) -> [u32; 3] {
        let c = self.workgroup_count();
        let x = (i % u64::from(c[0])) as u32;
        let y = ((i / u64::from(c[0])) % u64::from(c[1])) as u32;
        let z = (i / (u64::from(c[0]) * u64::from(c[1]))) as u32;
        [x, y, z]
    }

    /// Waves of `wave_size` lanes in work-group `id`.
    pub fn waves_in(&self, id: [u32; 3], wave_size: u32) -> u32 {
        let s = self.workgroup_size_of(id);
        (s[0] * s[1] * s[2]).div_ceil(wave_size)
    }

    /// Remainders (sizes of the partial work-groups) per dimension, as the
    /// `hidden_remainder_*` arguments carry them (0 if none).
    pub fn remainder(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.grid[d] % self.workgroup[d])
    }
}
