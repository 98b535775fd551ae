//! Settings WebKit reads from the app's environment (issue 34).
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
//! On a machine with no GPU (no DRM render node in `/dev/dri`) WebKit's accelerated compositing
//! runs on Mesa's software OpenGL (llvmpipe): every layer's tiles become textures in the web
//! process's own memory. There `WEBKIT_DISABLE_COMPOSITING_MODE=1` is set, and WebKit paints
//! with its CPU renderer into memory shared with the window, as it does when a GPU is missing
//! for other reasons. Measured under Xvfb on 2 cores (docs/benchmarks-app.md, issue 34, round
//! three): the idle window's web process holds 94-99 MB of anonymous memory with compositing and
//! 37 MB without, uses 2.7-4.5 % of a core with the caret blinking instead of 0.4 %, and peaks at
//! 457-472 MB instead of 283-285 MB in a 1,000,000-chunk message. With a render node WebKit's
//! default stays (not measured here: this machine has no GPU).
//!
//! A value the person set themselves is kept (`WEBKIT_FORCE_COMPOSITING_MODE=1` keeps
//! compositing on llvmpipe). Agents the app starts inherit the variables too; only programs
//! built on JavaScriptCore or WebKit read them.

/// The options set when absent, as (variable, value).
const DEFAULTS: &[(&str, &str)] = &[
    // In MB: 1 PB, past any machine's RAM.
    ("JSC_aggressiveHeapThresholdInMB", "1073741824"),
    // While the process uses under a quarter of the RAM (JSC's "small heap"; default 2).
    ("JSC_smallHeapGrowthFactor", "1.5"),
];

/// Set when the machine has no GPU (see the module's comment).
const NO_GPU: (&str, &str) = ("WEBKIT_DISABLE_COMPOSITING_MODE", "1");

/// The defaults not already in the environment (`present` says whether a variable is set).
fn missing(present: impl Fn(&str) -> bool, has_gpu: bool) -> Vec<(&'static str, &'static str)> {
    // Asking WebKit for compositing is the person's choice too.
    let no_gpu = (!has_gpu && !present("WEBKIT_FORCE_COMPOSITING_MODE")).then_some(NO_GPU);
    DEFAULTS
        .iter()
        .copied()
        .chain(no_gpu)
        .filter(|(name, _)| !present(name))
        .collect()
}

/// Whether a DRM render node (`/dev/dri/renderD*`), the device OpenGL draws through, exists.
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Sets the defaults the environment lacks. Returns what the log should say: the compositing
/// choice changes how every page is drawn, so a person looking into a rendering problem finds
/// it there (the JavaScriptCore options, set on every machine, are not repeated each start).
/// Called first thing in `main`, before any thread is started (the log does not exist yet):
/// changing the environment while another thread may read it is undefined behaviour.
pub fn apply() -> Option<String> {
    // The render node is Linux's; elsewhere WebKit's GPU question does not arise (WKWebView,
    // WebView2 read none of this).
    let has_gpu = !cfg!(target_os = "linux") || has_render_node();
    let set = missing(|name| std::env::var_os(name).is_some(), has_gpu);
    for (name, value) in &set {
        // SAFETY: single-threaded at this point (see above).
        unsafe { std::env::set_var(name, value) };
    }
    set.contains(&NO_GPU).then(|| {
        format!(
            "no GPU render node in /dev/dri: the window is drawn without WebKit's compositing \
             ({}={}; set WEBKIT_FORCE_COMPOSITING_MODE=1 to keep it)",
            NO_GPU.0, NO_GPU.1
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_what_is_absent_and_keeps_what_the_person_set() {
        assert_eq!(
            missing(|_| false, true),
            vec![
                ("JSC_aggressiveHeapThresholdInMB", "1073741824"),
                ("JSC_smallHeapGrowthFactor", "1.5"),
            ]
        );
        assert_eq!(
            missing(|name| name == "JSC_aggressiveHeapThresholdInMB", true),
            vec![("JSC_smallHeapGrowthFactor", "1.5")]
        );
    }

    #[test]
    fn without_a_gpu_compositing_is_off_unless_the_person_chose() {
        assert_eq!(
            missing(|name| name.starts_with("JSC_"), false),
            vec![("WEBKIT_DISABLE_COMPOSITING_MODE", "1")]
        );
        for chosen in ["WEBKIT_DISABLE_COMPOSITING_MODE", "WEBKIT_FORCE_COMPOSITING_MODE"] {
            assert!(!missing(|name| name == chosen, false).contains(&NO_GPU));
        }
        assert!(!missing(|_| false, true).contains(&NO_GPU));
    }
}
