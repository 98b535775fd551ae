#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porthole_fuzz::schema_validate(data));
