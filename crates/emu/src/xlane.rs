//! Cross-lane operations: DPP, SDWA selects, ds_swizzle, ds_bpermute (being written).
