//! macOS and Windows: the two webviews are wry child webviews of the window (WKWebView,
//! WebView2), placed by bounds. Not built or tested here (Linux only); see docs/platforms.md.

use tao::dpi::{LogicalPosition, LogicalSize};
use tao::window::Window;
use wry::{Rect, WebView, WebViewBuilder};

use super::strip;

/// Nothing to arm: the view exits when its stdin (the parent's pipe) closes.
pub fn die_with_parent() {}

/// Not checked elsewhere: a directory left by a killed view is removed only on Linux.
pub fn is_running(_pid: i32) -> bool {
    true
}

fn strip_bounds(size: LogicalSize<u32>) -> Rect {
    Rect {
        position: LogicalPosition::new(0, 0).into(),
        size: LogicalSize::new(size.width, strip::HEIGHT).into(),
    }
}

fn page_bounds(size: LogicalSize<u32>) -> Rect {
    Rect {
        position: LogicalPosition::new(0, strip::HEIGHT).into(),
        size: LogicalSize::new(size.width, size.height.saturating_sub(strip::HEIGHT)).into(),
    }
}

pub struct Container;

impl Container {
    pub fn new(_: &Window) -> Result<Self, String> {
        Ok(Container)
    }

    pub fn add_strip(
        &self,
        window: &Window,
        builder: WebViewBuilder,
        size: LogicalSize<u32>,
    ) -> Result<WebView, String> {
        builder
            .with_bounds(strip_bounds(size))
            .build_as_child(window)
            .map_err(|e| format!("cannot create the origin strip: {e}"))
    }

    pub fn add_page(
        &self,
        window: &Window,
        builder: WebViewBuilder,
        size: LogicalSize<u32>,
    ) -> Result<WebView, String> {
        builder
            .with_bounds(page_bounds(size))
            .build_as_child(window)
            .map_err(|e| format!("cannot create the web view: {e}"))
    }

    pub fn layout(&self, strip_view: &WebView, page_view: &WebView, size: LogicalSize<u32>) {
        let _ = strip_view.set_bounds(strip_bounds(size));
        let _ = page_view.set_bounds(page_bounds(size));
    }

    pub fn show(&self) {}
}

/// wry reports no load failures or engine crashes portably: only the Linux build has them.
pub fn watch_engine(_: &WebView, _on_load_failed: impl Fn() + 'static, _on_gone: impl Fn() + 'static) {}
