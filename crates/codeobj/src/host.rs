//! Host side of HIP programs (placeholder until bundle discovery lands).
