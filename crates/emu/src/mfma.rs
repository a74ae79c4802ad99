//! MFMA/SMFMAC matrix operations (being written).
