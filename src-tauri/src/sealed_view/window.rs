//! The sealed window: one tao window holding two webviews, the trusted origin strip on top and
//! the page below, and the event loop that reports the page's lifecycle on stdout. The same on
//! every platform; how the two webviews are placed in the window is `platform::Container`'s job.

use std::path::{Path, PathBuf};

use porthole_app::sealed::DATA_DIR_PREFIX;
use porthole_core::hidden_chars::neutralize;
use tao::dpi::LogicalSize;
use tao::event::{Event, WindowEvent};
use tao::event_loop::{ControlFlow, EventLoopBuilder, EventLoopProxy};
use tao::window::WindowBuilder;
use wry::{NewWindowResponse, PageLoadEvent, WebContext, WebViewBuilder};

use super::platform::{self, Container};
use super::{EXIT_WEB_PROCESS_GONE, Request, emit, is_web_url, navigation_allowed, scheme_of, strip};

#[derive(Debug)]
enum UserEvent {
    /// `{"cmd":"close"}` on stdin.
    Close,
    /// stdin reached EOF: the parent is gone.
    ParentGone,
    /// A navigation was allowed and is starting.
    NavigationStarted,
    /// A page was committed at this URL (for the origin strip only).
    Committed(String),
    Finished,
    LoadFailed,
    Blocked(String),
    /// An http/https pop-up URL, to load in this same view.
    PopUp(String),
}

/// Remove the web data directories of earlier views whose process is gone. A view removes its
/// own when it closes, but one killed (SIGKILL with its parent, PDEATHSIG) cannot: its cookies and
/// storage must not stay behind for long ("nothing kept after it closes"). Only this user's
/// directories of this name are touched.
pub(crate) fn sweep_stale_data_dirs(temp: &Path, is_running: impl Fn(i32) -> bool) -> usize {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(DATA_DIR_PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<i32>().ok())
        else {
            continue;
        };
        let ours = entry.metadata().is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                m.is_dir() && m.uid() == own_uid()
            }
            #[cfg(not(unix))]
            {
                m.is_dir()
            }
        });
        if ours && pid != std::process::id() as i32 && !is_running(pid) {
            remove_data_dir(&entry.path());
            removed += 1;
        }
    }
    removed
}

/// This process's user id (the owner of /proc/self).
#[cfg(unix)]
fn own_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(u32::MAX)
}

/// A fresh private directory for this run's web data.
fn make_data_dir() -> std::io::Result<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("{DATA_DIR_PREFIX}{}-{nanos:09}", std::process::id()));
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(&dir)?;
    Ok(dir)
}

fn remove_data_dir(dir: &Path) {
    if let Err(e) = std::fs::remove_dir_all(dir)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        eprintln!("porthole sealed-view: cannot remove the temporary data directory: {e}");
    }
}

fn send(proxy: &EventLoopProxy<UserEvent>, event: UserEvent) {
    let _ = proxy.send_event(event);
}

pub fn run(request: Request) -> i32 {
    sweep_stale_data_dirs(&std::env::temp_dir(), platform::is_running);
    let data_dir = match make_data_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("porthole sealed-view: cannot create a temporary data directory: {e}");
            emit("load_failed", None);
            return 1;
        }
    };
    match open(request, data_dir.clone()) {
        Ok(never) => match never {},
        Err(e) => {
            eprintln!("porthole sealed-view: {e}");
            remove_data_dir(&data_dir);
            emit("load_failed", None);
            1
        }
    }
}

/// The origin strip: our own static document, no script, and nothing it may navigate to.
fn strip_builder<'a>(context: &'a mut WebContext, url: &str) -> WebViewBuilder<'a> {
    WebViewBuilder::new_with_web_context(context)
        .with_html(strip::document(url))
        .with_javascript_disabled()
        .with_incognito(true)
        .with_devtools(false)
        .with_hotkeys_zoom(false)
        .with_clipboard(false)
        .with_download_started_handler(|_, _| false)
        .with_new_window_req_handler(|_, _| NewWindowResponse::Deny)
        // Our documents load as about:blank; nothing else may replace them.
        .with_navigation_handler(|url| url == "about:blank")
}

fn open(request: Request, data_dir: PathBuf) -> Result<std::convert::Infallible, String> {
    let event_loop = EventLoopBuilder::<UserEvent>::with_user_event().build();
    let proxy = event_loop.create_proxy();

    // Later stdin lines: `{"cmd":"close"}`; EOF means the parent is gone.
    let stdin_proxy = proxy.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            let cmd = serde_json::from_str::<serde_json::Value>(&line).ok();
            if cmd.as_ref().and_then(|v| v.get("cmd")).and_then(|c| c.as_str()) == Some("close") {
                send(&stdin_proxy, UserEvent::Close);
            }
        }
        send(&stdin_proxy, UserEvent::ParentGone);
    });

    let agent: String = neutralize(request.agent.trim()).chars().take(80).collect();
    let title = if agent.is_empty() {
        "Sign in".to_string()
    } else {
        format!("Sign in — {agent}")
    };
    let window = WindowBuilder::new()
        .with_title(title)
        .with_inner_size(LogicalSize::new(960.0, 760.0))
        .build(&event_loop)
        .map_err(|e| format!("cannot create the window: {e}"))?;
    let size = window.inner_size().to_logical::<u32>(window.scale_factor());
    let container = Container::new(&window)?;

    let mut context = WebContext::new(Some(data_dir.clone()));
    let strip_view = container.add_strip(&window, strip_builder(&mut context, &request.url), size)?;

    let nav_proxy = proxy.clone();
    let popup_proxy = proxy.clone();
    let load_proxy = proxy.clone();
    let page_builder = WebViewBuilder::new_with_web_context(&mut context)
        .with_url(&request.url)
        .with_incognito(true)
        .with_devtools(cfg!(debug_assertions))
        .with_download_started_handler(|_, _| false)
        .with_new_window_req_handler(move |url, _features| {
            if is_web_url(&url) {
                send(&popup_proxy, UserEvent::PopUp(url));
            } else {
                send(&popup_proxy, UserEvent::Blocked(scheme_of(&url)));
            }
            NewWindowResponse::Deny
        })
        .with_navigation_handler(move |url| {
            if navigation_allowed(&url) {
                if is_web_url(&url) {
                    send(&nav_proxy, UserEvent::NavigationStarted);
                }
                true
            } else {
                send(&nav_proxy, UserEvent::Blocked(scheme_of(&url)));
                false
            }
        })
        .with_on_page_load_handler(move |event, url| match event {
            PageLoadEvent::Started => send(&load_proxy, UserEvent::Committed(url)),
            PageLoadEvent::Finished => send(&load_proxy, UserEvent::Finished),
        });
    let page_view = container.add_page(&window, page_builder, size)?;

    let fail_proxy = proxy.clone();
    let gone_dir = data_dir.clone();
    platform::watch_engine(
        &page_view,
        move || send(&fail_proxy, UserEvent::LoadFailed),
        move || {
            // No "closed": the parent sees the exit without it and reports "crashed".
            remove_data_dir(&gone_dir);
            std::process::exit(EXIT_WEB_PROCESS_GONE);
        },
    );
    container.show();

    let mut views = Some((strip_view, page_view));
    let mut context = Some(context);
    let mut opened = false;
    let mut failed = false;
    event_loop.run(move |event, _, control_flow| {
        *control_flow = ControlFlow::Wait;
        let close = |views: &mut Option<(wry::WebView, wry::WebView)>, context: &mut Option<WebContext>| {
            drop(views.take());
            drop(context.take());
            remove_data_dir(&data_dir);
        };
        match event {
            Event::WindowEvent {
                event: WindowEvent::CloseRequested,
                ..
            }
            | Event::UserEvent(UserEvent::Close) => {
                close(&mut views, &mut context);
                emit("closed", None);
                *control_flow = ControlFlow::Exit;
            }
            Event::UserEvent(UserEvent::ParentGone) => {
                close(&mut views, &mut context);
                *control_flow = ControlFlow::Exit;
            }
            Event::WindowEvent {
                event: WindowEvent::Resized(size),
                ..
            } => {
                if let Some((strip_view, page_view)) = &views {
                    container.layout(
                        strip_view,
                        page_view,
                        size.to_logical::<u32>(window.scale_factor()),
                    );
                }
            }
            Event::UserEvent(UserEvent::NavigationStarted) => failed = false,
            Event::UserEvent(UserEvent::Committed(url)) => {
                if let Some((strip_view, _)) = &views
                    && strip_view.load_html(&strip::document(&url)).is_err()
                {
                    eprintln!("porthole sealed-view: cannot update the origin strip");
                }
            }
            Event::UserEvent(UserEvent::Finished) if !opened && !failed => {
                opened = true;
                emit("opened", None);
            }
            Event::UserEvent(UserEvent::LoadFailed) => {
                failed = true;
                emit("load_failed", None);
            }
            Event::UserEvent(UserEvent::Blocked(scheme)) => emit("navigation_blocked", Some(&scheme)),
            Event::UserEvent(UserEvent::PopUp(url)) => {
                if let Some((_, page_view)) = &views
                    && page_view.load_url(&url).is_err()
                {
                    emit("load_failed", None);
                }
            }
            _ => {}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_views_data_is_swept_and_a_running_ones_is_kept() {
        let temp = std::env::temp_dir().join(format!("porthole-sweep-test-{}", std::process::id()));
        std::fs::create_dir_all(&temp).unwrap();
        let gone = temp.join("porthole-sealed-4000001-000000001");
        let running = temp.join("porthole-sealed-4000002-000000002");
        let other = temp.join("porthole-something-else-1-2");
        for dir in [&gone, &running, &other] {
            std::fs::create_dir(dir).unwrap();
            std::fs::write(dir.join("cookies.sqlite"), "session=secret").unwrap();
        }
        let removed = sweep_stale_data_dirs(&temp, |pid| pid == 4000002);
        let kept = running.exists() && other.exists();
        std::fs::remove_dir_all(&temp).unwrap();
        assert_eq!(removed, 1);
        assert!(!gone.exists(), "the dead view's cookies stay behind");
        assert!(kept);
    }
}
