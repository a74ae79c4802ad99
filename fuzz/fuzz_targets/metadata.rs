//! Fuzzes the msgpack reader and the typed AMDHSA metadata layer built on it.
#![no_main]

use lathe_codeobj::msgpack;
use lathe_codeobj::Metadata;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((v, used)) = msgpack::parse_prefix(data) {
        assert!(used <= data.len());
        let _ = v.to_string();
    }
    if let Ok(v) = msgpack::parse(data) {
        let _ = Metadata::from_value(v.clone());
    }
    if let Ok(m) = Metadata::parse(data) {
        for k in &m.kernels {
            let _ = k.explicit_args().count();
            for a in &k.args {
                let _ = a.value_kind.as_str();
                let _ = a.value_kind.is_hidden();
            }
        }
    }
});
