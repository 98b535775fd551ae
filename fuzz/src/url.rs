//! Target (b): the URL analyzer and the text neutralizer.
//!
//! Input: the URL, a newline, then the elicitation message (both as UTF-8). Besides "never
//! panics", it checks that what the analyzer reports is consistent and that neutralized text
//! carries no hidden characters any more.

use porthole_core::hidden_chars::neutralize;
use porthole_core::url_safety::{analyze_url, text_warnings};

pub fn url_analyze(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (url, message) = text.split_once('\n').unwrap_or((text, ""));

    if let Ok(analysis) = analyze_url(url, message) {
        assert_eq!(analysis.full, url, "the full URL is kept verbatim");
        assert!(analysis.scheme == "https" || analysis.scheme == "http");
        assert!(!analysis.host_ascii.is_empty(), "an accepted URL has a host");
        assert!(
            analysis.host_ascii.is_ascii(),
            "host_ascii is ASCII: {}",
            analysis.host_ascii
        );
        assert!(
            analysis.warnings.windows(2).all(|w| w[0] < w[1]),
            "warnings are sorted and unique: {:?}",
            analysis.warnings
        );
        if let Some(domain) = &analysis.registrable_domain_ascii {
            let host = analysis.host_ascii.trim_end_matches('.');
            assert!(
                host == domain || host.ends_with(&format!(".{domain}")),
                "registrable domain {domain} is a suffix of the host {host}"
            );
        }
    }

    for s in [url, message] {
        let shown = neutralize(s);
        assert!(
            text_warnings(&shown).is_empty(),
            "neutralized text still hides characters: {shown:?}"
        );
    }
}
