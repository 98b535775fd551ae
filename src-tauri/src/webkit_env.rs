//! Settings the window's web process reads from its environment (issue 34).
//!
//! WebKitGTK starts the web process with the app's environment, and JavaScriptCore reads an
//! option `NAME` from `JSC_NAME` when it starts. Tauri (wry) builds the `WebKitWebContext` itself,
//! so WebKit's own memory pressure settings, a construct-only property of that context, cannot
//! be given; these options can.
//!
//! On a machine with 16 GB of RAM or more JavaScriptCore grows its heap "aggressively": up to
//! about 4x what was live after the last full collection, and while collections come often it
//! lets the young generation grow up to 8x its 32 MB start (256 MB) between them. Built for a
//! browser tab that must be fast, this left the window of a long transcript holding garbage of
//! hundreds of MB after a scroll through it, which a machine under 16 GB would have collected.
//! Raising the threshold past any real machine's RAM gives every machine the growth a smaller one
//! gets, and the growth factor of that regime is lowered from 2 to 1.5: the heap may grow by half
//! of what was live before a full collection, so what a scroll leaves behind is at most about
//! half the live heap. Measured in docs/benchmarks-app.md (issue 34).
//!
//! A value the person set themselves is kept. Agents the app starts inherit the variables too;
//! only programs built on JavaScriptCore read it, and for them it only means collecting sooner.

/// The options set when absent, as (variable, value).
pub const DEFAULTS: &[(&str, &str)] = &[
    // In MB: 1 PB, past any machine's RAM.
    ("JSC_aggressiveHeapThresholdInMB", "1073741824"),
    // While the process uses under a quarter of the RAM (JSC's "small heap"; default 2).
    ("JSC_smallHeapGrowthFactor", "1.5"),
];

/// The defaults not already in the environment (`present` says whether a variable is set).
pub fn missing(present: impl Fn(&str) -> bool) -> Vec<(&'static str, &'static str)> {
    DEFAULTS
        .iter()
        .copied()
        .filter(|(name, _)| !present(name))
        .collect()
}

/// Sets the defaults the environment lacks. Called first thing in `main`, before any thread is
/// started: changing the environment while another thread may read it is undefined behaviour.
pub fn apply() {
    for (name, value) in missing(|name| std::env::var_os(name).is_some()) {
        // SAFETY: single-threaded at this point (see above).
        unsafe { std::env::set_var(name, value) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_what_is_absent_and_keeps_what_the_person_set() {
        assert_eq!(
            missing(|_| false),
            vec![
                ("JSC_aggressiveHeapThresholdInMB", "1073741824"),
                ("JSC_smallHeapGrowthFactor", "1.5"),
            ]
        );
        assert_eq!(
            missing(|name| name == "JSC_aggressiveHeapThresholdInMB"),
            vec![("JSC_smallHeapGrowthFactor", "1.5")]
        );
    }
}
