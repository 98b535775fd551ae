//! Everything GTK and WebKitGTK in the sealed view: the parent-death signal, the box the two
//! webviews are packed in, and the engine's load-failure and crash signals (which wry does not
//! expose portably).

use gtk::glib;
use gtk::prelude::*;
use tao::dpi::LogicalSize;
use tao::platform::unix::WindowExtUnix;
use tao::window::Window;
use wry::{WebView, WebViewBuilder, WebViewBuilderExtUnix, WebViewExtUnix};

use super::strip;

/// Be killed when the parent dies, even if it could not close our stdin (the process module's
/// parent-death signal, set on ourselves).
pub fn die_with_parent() {
    porthole_process::die_with_parent(porthole_process::Signal::Kill);
}

/// Whether process `pid` still runs (also as another user).
pub fn is_running(pid: i32) -> bool {
    pid > 0 && porthole_process::is_running(pid as u32)
}

/// The window's vertical box: the strip at its natural height on top, the page filling the rest.
/// GTK's packing keeps that layout on resize (and works on X11 and Wayland alike, which wry's
/// child webviews do not).
pub struct Container {
    vbox: gtk::Box,
}

impl Container {
    pub fn new(window: &Window) -> Result<Self, String> {
        let vbox = window
            .default_vbox()
            .ok_or("the window has no default vbox")?
            .clone();
        Ok(Container { vbox })
    }

    pub fn add_strip(
        &self,
        _: &Window,
        builder: WebViewBuilder,
        _: LogicalSize<u32>,
    ) -> Result<WebView, String> {
        let view = builder
            .build_gtk(&self.vbox)
            .map_err(|e| format!("cannot create the origin strip: {e}"))?;
        let widget = view.webview();
        self.vbox
            .set_child_packing(&widget, false, false, 0, gtk::PackType::Start);
        widget.set_size_request(-1, strip::HEIGHT as i32);
        Ok(view)
    }

    pub fn add_page(
        &self,
        _: &Window,
        builder: WebViewBuilder,
        _: LogicalSize<u32>,
    ) -> Result<WebView, String> {
        builder
            .build_gtk(&self.vbox)
            .map_err(|e| format!("cannot create the web view: {e}"))
    }

    /// Nothing to do: the box lays its children out.
    pub fn layout(&self, _: &WebView, _: &WebView, _: LogicalSize<u32>) {}

    pub fn show(&self) {
        self.vbox.show_all();
    }
}

/// Report the page's load failures (not our own blocks or cancellations) and the death of its
/// web content process.
pub fn watch_engine(page: &WebView, on_load_failed: impl Fn() + 'static, on_gone: impl Fn() + 'static) {
    let wk = page.webview();
    wk.connect_local("load-failed", false, move |args| {
        // (webview, load_event, failing_uri, error): cancellations and policy decisions (our
        // own blocks, already reported) are not load failures.
        let ignorable = args
            .get(3)
            .and_then(|v| v.get::<glib::Error>().ok())
            .map(|e| {
                let domain = e.domain();
                let domain = domain.as_str();
                domain == "WebKitPolicyError"
                    || (domain == "WebKitNetworkError" && e.message().contains("cancel"))
            })
            .unwrap_or(false);
        if !ignorable {
            on_load_failed();
        }
        Some(false.to_value())
    });
    wk.connect_local("web-process-terminated", false, move |_| {
        on_gone();
        None
    });
}
