//! URL safety analysis for URL-mode elicitations.
//!
//! An (untrusted) agent can ask Porthole to open a URL. Before the user is
//! asked to consent, [`analyze_url`] rejects URLs that must never be opened
//! ([`UrlError`]) and lists the features of the rest that a user should be
//! warned about ([`UrlWarning`]). [`text_warnings`] and [`crate::hidden_chars`] do the
//! same job for other agent-supplied strings shown in the UI.
//!
//! Decisions worth knowing (where the protocol leaves room):
//! - Whitespace and control characters anywhere in the raw URL are a
//!   [`UrlError::Parse`], not a warning: the URL parser would silently strip
//!   or encode them, so what the user sees would not be what gets opened.
//! - Any `@` in the authority is [`UrlError::Userinfo`], even an empty one
//!   (`https://@host`), which the URL standard would silently drop.
//! - Loopback hosts (127.0.0.0/8, `[::1]`, `localhost`: the one rule of
//!   [`crate::loopback`]) get no `ip-host`, `non-https` or `unusual-port`
//!   warning: local sign-in pages of dev tools legitimately use them.
//!   IPv4-mapped forms such as `[::ffff:127.0.0.1]` and subdomains of
//!   `localhost` are *not* (see that module for why).
//! - Mixed scripts: Han + Hiragana + Katakana (Japanese), Han + Hangul
//!   (Korean) and Han + Bopomofo (Chinese) each count as one script; Latin
//!   mixed with any of them is still `mixed-script`.
//! - In display text (the message, [`text_warnings`], `hidden_chars::neutralize`) a single
//!   emoji variation selector (U+FE0E/U+FE0F) after an emoji and a zero-width
//!   joiner between emoji are allowed, so "⚠️" or "👩‍💻" don't raise
//!   `invisible-char`. Inside URLs there is no such allowance (a ZWJ in a host
//!   makes a different domain that looks identical). Other control characters
//!   (except tab, CR, LF) in display text count as `invisible-char`.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use unicode_script::UnicodeScript;
use unicode_security::confusable_detection::skeleton;
use unicode_security::mixed_script::MixedScript;
use url::{Host, Url};

use crate::hidden_chars::{self, HiddenChar};

/// Longest URL accepted, in bytes (64 KiB).
pub const MAX_URL_LEN: usize = 64 * 1024;

/// Something about a URL (or agent text) the user should be warned about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum UrlWarning {
    Punycode,
    MixedScript,
    Confusable,
    BidiControl,
    InvisibleChar,
    IpHost,
    NonHttps,
    UnusualPort,
}

impl UrlWarning {
    /// Every warning, in declaration (and sort) order.
    pub const ALL: [UrlWarning; 8] = [
        Self::Punycode,
        Self::MixedScript,
        Self::Confusable,
        Self::BidiControl,
        Self::InvisibleChar,
        Self::IpHost,
        Self::NonHttps,
        Self::UnusualPort,
    ];

    /// Stable machine-readable code (same as the serde name).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Punycode => "punycode",
            Self::MixedScript => "mixed-script",
            Self::Confusable => "confusable",
            Self::BidiControl => "bidi-control",
            Self::InvisibleChar => "invisible-char",
            Self::IpHost => "ip-host",
            Self::NonHttps => "non-https",
            Self::UnusualPort => "unusual-port",
        }
    }

    /// The words a permission dialog uses: there the hidden characters are in the tool call's
    /// title or an option's name, and the dialog shows them as escapes.
    pub fn permission_explanation(&self) -> &'static str {
        match self {
            Self::BidiControl => {
                "Hidden text-direction characters are present in the title or an option: the text \
                 may not read as it is meant. They are shown as ⟨U+…⟩."
            }
            Self::InvisibleChar => {
                "Invisible characters are present in the title or an option. They are shown as ⟨U+…⟩."
            }
            other => other.explanation(),
        }
    }

    /// Plain-words explanation for a non-technical user: what every dialog shows for it (the
    /// window's table is generated from these, `ui/src/lib/generated/warning-text.ts`).
    pub fn explanation(&self) -> &'static str {
        match self {
            Self::Punycode => {
                "This address uses international (non-English) characters in its name, \
                 which can be used to imitate a well-known site."
            }
            Self::MixedScript => {
                "This address mixes letters from different alphabets in one word, \
                 a common trick to imitate a well-known site."
            }
            Self::Confusable => {
                "This address uses characters that look like other letters (look-alike characters)."
            }
            Self::BidiControl => {
                "This text contains hidden characters that change the reading direction, \
                 so what you see may not be what it says."
            }
            Self::InvisibleChar => "This text contains invisible characters that you cannot see.",
            Self::IpHost => {
                "This address is a bare number (IP address) instead of a named website, \
                 so you cannot tell who runs it."
            }
            Self::NonHttps => {
                "This address does not use a secure connection (https), so others on the \
                 network could see or change what you send."
            }
            Self::UnusualPort => {
                "This address uses an unusual port number, which ordinary websites rarely do."
            }
        }
    }
}

/// Result of analyzing a URL the agent asked to open.
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlAnalysis {
    /// The URL exactly as the agent sent it (never truncated).
    pub full: String,
    /// `url::Url` serialization (ASCII/punycode host).
    pub normalized: String,
    /// `"https"` or `"http"`.
    pub scheme: String,
    /// Host as sent on the wire, e.g. `xn--pple-43d.com`; IPv6 in brackets.
    pub host_ascii: String,
    /// Host for display, e.g. `аpple.com`; equals `host_ascii` when not IDN.
    pub host_unicode: String,
    /// eTLD+1 in Unicode form, e.g. `example.co.uk`. `None` for IP hosts,
    /// loopback names and single-label hosts.
    pub registrable_domain: Option<String>,
    pub registrable_domain_ascii: Option<String>,
    /// Explicit non-default port (the parser drops default ports).
    pub port: Option<u16>,
    pub is_loopback: bool,
    /// Sorted, deduplicated.
    pub warnings: Vec<UrlWarning>,
}

/// Why a URL was refused outright.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlError {
    Parse(String),
    NotAbsolute,
    UnsupportedScheme(String),
    Userinfo,
    MissingHost,
    TooLong(usize),
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parse(detail) => write!(f, "the URL could not be understood: {detail}"),
            Self::NotAbsolute => write!(
                f,
                "the URL is not a complete web address (it must start with https:// or http://)"
            ),
            Self::UnsupportedScheme(scheme) => write!(
                f,
                "the URL uses the \"{scheme}\" scheme; only https and http addresses can be opened"
            ),
            Self::Userinfo => write!(
                f,
                "the URL contains credentials (user:password@), which the protocol forbids"
            ),
            Self::MissingHost => write!(f, "the URL does not name a website (it has no host)"),
            Self::TooLong(len) => write!(
                f,
                "the URL is {len} bytes long, more than the limit of {MAX_URL_LEN} bytes"
            ),
        }
    }
}

impl std::error::Error for UrlError {}

/// Analyze a URL from a URL-mode elicitation. `message` is the elicitation's
/// message text (scanned for bidi/invisible characters too).
pub fn analyze_url(url: &str, message: &str) -> Result<UrlAnalysis, UrlError> {
    if url.len() > MAX_URL_LEN {
        return Err(UrlError::TooLong(url.len()));
    }
    // The parser strips/encodes these silently; refuse instead (see module docs).
    if let Some((at, c)) = url
        .char_indices()
        .find(|(_, c)| c.is_whitespace() || c.is_control())
    {
        return Err(UrlError::Parse(format!(
            "it contains a space or control character ({}) at byte {at}",
            hidden_chars::code_point(c)
        )));
    }

    let parsed = Url::parse(url).map_err(|e| match e {
        url::ParseError::RelativeUrlWithoutBase => UrlError::NotAbsolute,
        url::ParseError::EmptyHost => UrlError::MissingHost,
        other => UrlError::Parse(other.to_string()),
    })?;
    let scheme = parsed.scheme();
    if scheme != "https" && scheme != "http" {
        return Err(UrlError::UnsupportedScheme(scheme.to_owned()));
    }
    let raw_authority = raw_authority(url);
    if raw_authority.contains('@') || !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(UrlError::Userinfo);
    }
    let host = parsed.host().ok_or(UrlError::MissingHost)?;

    let mut warnings = BTreeSet::new();
    // Scan the raw text and its percent-decoded form: the parser percent-encodes
    // these characters, which hides them from a check on the normalized URL.
    warnings.extend(hidden_char_warnings(url, false));
    for decoded in percent_decoded(url) {
        warnings.extend(hidden_char_warnings(&decoded, false));
    }
    warnings.extend(hidden_char_warnings(message, true));

    let is_loopback = crate::loopback::is_loopback_host(&host);
    let (host_ascii, host_unicode, registrable) = match host {
        Host::Ipv4(ip) => (ip.to_string(), ip.to_string(), None),
        Host::Ipv6(ip) => {
            let bracketed = format!("[{ip}]");
            (bracketed.clone(), bracketed, None)
        }
        Host::Domain(name) => {
            let unicode = to_unicode(name);
            let bare = name.strip_suffix('.').unwrap_or(name);
            let registrable = if is_loopback {
                None
            } else {
                registrable_domain(bare)
            };
            warnings.extend(domain_warnings(name, &unicode, raw_host(raw_authority)));
            (name.to_owned(), unicode, registrable)
        }
    };

    if matches!(host, Host::Ipv4(_) | Host::Ipv6(_)) && !is_loopback {
        warnings.insert(UrlWarning::IpHost);
    }
    if scheme == "http" && !is_loopback {
        warnings.insert(UrlWarning::NonHttps);
    }
    // `port()` is None for the scheme's default port, so any value is unusual.
    if parsed.port().is_some() && !is_loopback {
        warnings.insert(UrlWarning::UnusualPort);
    }

    let (registrable_domain, registrable_domain_ascii) = match registrable {
        Some(ascii) => (Some(to_unicode(&ascii)), Some(ascii)),
        None => (None, None),
    };
    Ok(UrlAnalysis {
        full: url.to_owned(),
        normalized: parsed.as_str().to_owned(),
        scheme: scheme.to_owned(),
        host_ascii,
        host_unicode,
        registrable_domain,
        registrable_domain_ascii,
        port: parsed.port(),
        is_loopback,
        warnings: warnings.into_iter().collect(),
    })
}

/// Warnings for a plain agent string shown to the user (agent name, dialog
/// titles): only `BidiControl` / `InvisibleChar`.
pub fn text_warnings(s: &str) -> Vec<UrlWarning> {
    let set: BTreeSet<_> = hidden_char_warnings(s, true).collect();
    set.into_iter().collect()
}

/// The hidden characters of `s` as URL warnings (the URL analysis reports them with its own).
fn hidden_char_warnings(s: &str, emoji_ok: bool) -> impl Iterator<Item = UrlWarning> {
    hidden_chars::found_in(s, emoji_ok).map(UrlWarning::from)
}

impl From<HiddenChar> for UrlWarning {
    fn from(hidden: HiddenChar) -> Self {
        match hidden {
            HiddenChar::BidiControl => UrlWarning::BidiControl,
            HiddenChar::Invisible => UrlWarning::InvisibleChar,
        }
    }
}

/// Percent-decoded pieces of `s` (decoded once, invalid UTF-8 made lossy).
/// `form_urlencoded` is the decoder the url crate ships; that it splits at
/// `&`/`=` and turns `+` into a space doesn't matter for a character scan.
fn percent_decoded(s: &str) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
    url::form_urlencoded::parse(s.as_bytes()).flat_map(|(k, v)| [k, v])
}

// ---------------------------------------------------------------------------
// Raw authority / host

/// The authority part of an already-parsed http(s) URL, as the agent wrote it.
/// Mirrors the URL standard for special schemes: after `scheme:` any run of
/// `/` or `\` is skipped, and the authority ends at `/`, `\`, `?` or `#`.
fn raw_authority(url: &str) -> &str {
    let rest = url.split_once(':').map_or("", |(_, rest)| rest);
    let rest = rest.trim_start_matches(['/', '\\']);
    rest.split(['/', '\\', '?', '#']).next().unwrap_or("")
}

/// The host within a raw authority that has no userinfo: drop `:port`.
fn raw_host(authority: &str) -> &str {
    authority.split(':').next().unwrap_or("")
}

// ---------------------------------------------------------------------------
// Domain checks

/// IDNA to Unicode for display; fall back to ASCII rather than show the
/// replacement characters idna uses to mark errors.
fn to_unicode(ascii: &str) -> String {
    match idna::domain_to_unicode(ascii) {
        (unicode, Ok(())) => unicode,
        (_, Err(_)) => ascii.to_owned(),
    }
}

/// eTLD+1 of a lowercase ASCII host without trailing dot, from the Public Suffix List.
fn registrable_domain(host: &str) -> Option<String> {
    // psl expects well-formed names; empty labels ("a..b") have no meaningful answer.
    if host.is_empty() || host.split('.').any(str::is_empty) {
        return None;
    }
    psl::domain_str(host).map(str::to_owned)
}

/// Punycode / mixed-script / confusable warnings for a domain host.
fn domain_warnings(ascii: &str, unicode: &str, raw_host: &str) -> BTreeSet<UrlWarning> {
    let mut warnings = BTreeSet::new();
    if ascii
        .split('.')
        .any(|label| label.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("xn--")))
    {
        warnings.insert(UrlWarning::Punycode);
    }
    for label in unicode.split('.') {
        if is_mixed_script(label) {
            warnings.insert(UrlWarning::MixedScript);
        }
        if is_confusable_label(label) {
            warnings.insert(UrlWarning::Confusable);
        }
    }
    // Fullwidth / mathematical / enclosed letters are folded to plain ASCII by
    // IDNA, so they never reach `unicode`; catch them as the agent wrote them.
    if percent_decoded(raw_host).any(|piece| piece.chars().any(folds_to_ascii)) {
        warnings.insert(UrlWarning::Confusable);
    }
    warnings
}

/// Whether one label mixes scripts: UTS #39's resolved script set is empty. The augmented
/// sets of UTS #39 (unicode-security's tables) make Han with Hiragana/Katakana (Japanese),
/// Hangul (Korean) or Bopomofo (Chinese) one script, as browsers do.
fn is_mixed_script(label: &str) -> bool {
    !label.is_single_script()
}

/// A label is confusable if it contains an ASCII look-alike and either also
/// has ASCII letters ("аpple") or consists only of look-alikes ("аррӏе").
/// A genuine non-Latin word ("пример") has letters with no ASCII twin.
fn is_confusable_label(label: &str) -> bool {
    let letters: Vec<char> = label
        .chars()
        .filter(|c| {
            let e = c.script_extension();
            !e.is_common() && !e.is_inherited()
        })
        .collect();
    let lookalikes = letters.iter().filter(|c| is_ascii_lookalike(**c)).count();
    lookalikes > 0 && (letters.iter().any(char::is_ascii_alphabetic) || lookalikes == letters.len())
}

/// A character outside ASCII whose UTS #39 confusable skeleton is plain ASCII letters or
/// digits ("а" Cyrillic → "a", "ο" Greek → "o", "ɑ" → "a"): Unicode's own confusables data,
/// through unicode-security, rather than a list of our own. Compatibility forms (fullwidth,
/// mathematical) are handled by [`folds_to_ascii`] because IDNA turns them into ASCII first.
fn is_ascii_lookalike(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    let mut buf = [0; 4];
    let mut twin = skeleton(c.encode_utf8(&mut buf)).peekable();
    twin.peek().is_some() && twin.all(|t| t.is_ascii_alphanumeric())
}

/// A non-ASCII character that IDNA maps to ASCII letters/digits, e.g.
/// fullwidth "ａ", mathematical "𝐚", circled "ⓐ".
fn folds_to_ascii(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    let mut buf = [0; 4];
    idna::domain_to_ascii(c.encode_utf8(&mut buf))
        .is_ok_and(|mapped| !mapped.is_empty() && mapped.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Whether an IP address is loopback in the sense used here (see module docs).
#[cfg(test)]
mod tests {
    use super::*;
    use crate::hidden_chars::neutralize;
    use UrlWarning::*;
    use std::net::IpAddr;

    fn ok(url: &str) -> UrlAnalysis {
        match analyze_url(url, "") {
            Ok(a) => a,
            Err(e) => panic!("{url:?} was rejected: {e}"),
        }
    }

    fn warnings(url: &str) -> Vec<UrlWarning> {
        ok(url).warnings
    }

    fn err(url: &str) -> UrlError {
        match analyze_url(url, "") {
            Ok(a) => panic!("{url:?} was accepted: {a:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn clean_https_has_no_warnings() {
        let a = ok("https://accounts.example.com/oauth?state=abc");
        assert_eq!(a.warnings, vec![]);
        assert_eq!(a.scheme, "https");
        assert_eq!(a.host_ascii, "accounts.example.com");
        assert_eq!(a.host_unicode, "accounts.example.com");
        assert_eq!(a.registrable_domain.as_deref(), Some("example.com"));
        assert_eq!(a.registrable_domain_ascii.as_deref(), Some("example.com"));
        assert_eq!(a.normalized, "https://accounts.example.com/oauth?state=abc");
        assert_eq!(a.port, None);
        assert!(!a.is_loopback);
    }

    #[test]
    fn full_is_verbatim_and_normalized_is_serialization() {
        let a = ok("HTTPS://Accounts.EXAMPLE.com:443/a/../b");
        assert_eq!(a.full, "HTTPS://Accounts.EXAMPLE.com:443/a/../b");
        assert_eq!(a.normalized, "https://accounts.example.com/b");
        assert_eq!(a.port, None, "default port is dropped");
        assert_eq!(a.warnings, vec![]);
    }

    #[test]
    fn http_non_loopback_warns() {
        assert_eq!(warnings("http://example.com/login"), vec![NonHttps]);
    }

    #[test]
    fn loopback_hosts_have_no_warnings() {
        for url in [
            "http://127.0.0.1:53211/authorize?state=x",
            "http://localhost/cb",
            "http://localhost:3000/cb",
            "http://LOCALHOST./cb",
            "http://127.0.0.5/",
            "http://[::1]/",
            "http://[::1]:9000/cb",
        ] {
            let a = ok(url);
            assert_eq!(a.warnings, vec![], "{url}");
            assert!(a.is_loopback, "{url}");
            assert_eq!(a.registrable_domain, None, "{url}");
        }
    }

    #[test]
    fn ipv4_mapped_loopback_is_not_loopback() {
        let a = ok("http://[::ffff:127.0.0.1]/");
        assert!(!a.is_loopback);
        assert_eq!(a.warnings, vec![IpHost, NonHttps]);
    }

    #[test]
    fn unicode_confusables_catch_letters_a_short_list_missed() {
        // Dotless ı (Latin, so no mixed script) and Cyrillic г (skeleton "r") were not in the
        // hand-kept list this replaced; Unicode's confusables data has them.
        for url in ["https://gıthub.com/", "https://fгee-gifts.com/"] {
            assert!(warnings(url).contains(&Confusable), "{url}: {:?}", warnings(url));
        }
        // A genuine non-Latin word still is not confusable.
        assert!(!warnings("https://пример.рф/").contains(&Confusable));
    }

    #[test]
    fn a_subdomain_of_localhost_is_not_taken_as_this_computer() {
        // Its resolution depends on the resolver (crate::loopback).
        let a = ok("http://dev.app.localhost:8080/");
        assert!(!a.is_loopback);
        assert_eq!(a.warnings, vec![NonHttps, UnusualPort]);
    }

    #[test]
    fn localhost_lookalikes_are_not_loopback() {
        assert_eq!(warnings("http://localhost.evil.com/"), vec![NonHttps]);
        assert_eq!(warnings("http://notlocalhost/"), vec![NonHttps]);
    }

    #[test]
    fn unusual_port() {
        let a = ok("https://example.com:8443/");
        assert_eq!(a.port, Some(8443));
        assert_eq!(a.warnings, vec![UnusualPort]);
        // Another scheme's default port is unusual too.
        assert_eq!(warnings("https://example.com:80/"), vec![UnusualPort]);
        assert_eq!(warnings("http://example.com:443/"), vec![NonHttps, UnusualPort]);
        // Default ports are fine.
        assert_eq!(warnings("http://example.com:80/"), vec![NonHttps]);
        assert_eq!(ok("https://example.com:443/").port, None);
    }

    #[test]
    fn ipv4_host() {
        let a = ok("https://8.8.8.8/");
        assert_eq!(a.warnings, vec![IpHost]);
        assert_eq!(a.host_ascii, "8.8.8.8");
        assert_eq!(a.host_unicode, "8.8.8.8");
        assert_eq!(a.registrable_domain, None);
        assert_eq!(a.registrable_domain_ascii, None);
        assert_eq!(
            warnings("http://10.0.0.1:8080/"),
            vec![IpHost, NonHttps, UnusualPort]
        );
    }

    #[test]
    fn ipv6_host() {
        let a = ok("https://[2001:db8::1]/x");
        assert_eq!(a.host_ascii, "[2001:db8::1]");
        assert_eq!(a.warnings, vec![IpHost]);
        assert_eq!(a.registrable_domain, None);
    }

    #[test]
    fn integer_and_hex_ip_forms_are_ip_hosts() {
        let a = ok("https://134744072/");
        assert_eq!(a.host_ascii, "8.8.8.8");
        assert_eq!(a.warnings, vec![IpHost]);
        assert_eq!(warnings("https://0x8.0x8.0x8.0x8/"), vec![IpHost]);
        assert_eq!(warnings("https://010.010.010.010/"), vec![IpHost]);
        // Unusual spellings of loopback are still loopback after normalization.
        for url in ["http://0x7f.1/", "http://2130706433/", "http://127.1/"] {
            let a = ok(url);
            assert_eq!(a.host_ascii, "127.0.0.1", "{url}");
            assert!(a.is_loopback, "{url}");
            assert_eq!(a.warnings, vec![], "{url}");
        }
    }

    #[test]
    fn punycode_host() {
        // Decodes to all-Cyrillic "аррӏе", so it is a look-alike as well.
        let a = ok("https://xn--80ak6aa92e.com/");
        assert_eq!(a.warnings, vec![Punycode, Confusable]);
        assert_eq!(a.host_unicode, "\u{0430}\u{0440}\u{0440}\u{04CF}\u{0435}.com");
        assert_eq!(a.host_ascii, "xn--80ak6aa92e.com");
        assert_ne!(a.host_unicode, a.host_ascii);
        // Uppercase prefix as sent by the agent.
        assert!(warnings("https://XN--80AK6AA92E.com/").contains(&Punycode));
    }

    #[test]
    fn cyrillic_a_apple_lookalike() {
        let a = ok("https://\u{0430}pple.com/");
        assert_eq!(a.warnings, vec![Punycode, MixedScript, Confusable]);
        assert_eq!(a.host_ascii, "xn--pple-43d.com");
        assert_eq!(a.host_unicode, "\u{0430}pple.com");
        assert_ne!(a.host_unicode, a.host_ascii);
        assert_eq!(a.registrable_domain.as_deref(), Some("\u{0430}pple.com"));
        assert_eq!(a.registrable_domain_ascii.as_deref(), Some("xn--pple-43d.com"));
        // Same result when the agent sends the punycode form.
        assert_eq!(
            warnings("https://xn--pple-43d.com/"),
            vec![Punycode, MixedScript, Confusable]
        );
    }

    #[test]
    fn all_cyrillic_lookalike() {
        // "аррӏе": every letter is Cyrillic, so not mixed, but all look like ASCII.
        let a = ok("https://\u{0430}\u{0440}\u{0440}\u{04CF}\u{0435}.com/");
        assert_eq!(a.warnings, vec![Punycode, Confusable]);
    }

    #[test]
    fn greek_lookalike() {
        // Greek omicron in "gοogle".
        assert_eq!(
            warnings("https://g\u{03BF}ogle.com/"),
            vec![Punycode, MixedScript, Confusable]
        );
    }

    #[test]
    fn percent_encoded_host_is_decoded() {
        // %D0%B0 is Cyrillic а.
        let a = ok("https://%D0%B0pple.com/");
        assert_eq!(a.host_ascii, "xn--pple-43d.com");
        assert_eq!(a.warnings, vec![Punycode, MixedScript, Confusable]);
    }

    #[test]
    fn fullwidth_and_math_letters_are_confusable() {
        let a = ok("https://\u{FF50}\u{FF41}\u{FF59}\u{FF50}\u{FF41}\u{FF4C}.com/");
        assert_eq!(a.host_ascii, "paypal.com", "IDNA folds fullwidth to ASCII");
        assert_eq!(a.warnings, vec![Confusable]);
        // Mathematical bold "𝐚".
        assert_eq!(warnings("https://p\u{1D41A}ypal.com/"), vec![Confusable]);
        // Percent-encoded fullwidth "ａ" (EF BD 81).
        assert_eq!(warnings("https://p%EF%BD%81ypal.com/"), vec![Confusable]);
        // Fullwidth characters outside the host are not a host confusable.
        assert_eq!(warnings("https://paypal.com/\u{FF41}"), vec![]);
    }

    #[test]
    fn legit_cyrillic_idn_is_only_punycode() {
        let a = ok("https://\u{043F}\u{0440}\u{0438}\u{043C}\u{0435}\u{0440}.\u{0440}\u{0444}/");
        assert_eq!(a.warnings, vec![Punycode]);
        assert_eq!(a.host_unicode, "пример.рф");
        assert!(a.host_ascii.starts_with("xn--"));
        assert_eq!(a.registrable_domain.as_deref(), Some("пример.рф"));
    }

    #[test]
    fn japanese_hosts_are_only_punycode() {
        for host in [
            "例え.jp",
            "日本語ひらがなカタカナ.jp",
            "ドメイン名例.jp",
            "ラーメン.jp",
        ] {
            let a = ok(&format!("https://{host}/"));
            assert_eq!(a.warnings, vec![Punycode], "{host}");
            assert_eq!(a.host_unicode, host);
        }
        // Korean (Hangul + Han) and Chinese are single-script too.
        assert_eq!(warnings("https://한국韓國.kr/"), vec![Punycode]);
        assert_eq!(warnings("https://中文ㄅㄆ.cn/"), vec![Punycode]);
    }

    #[test]
    fn cjk_mixes_that_are_not_one_language_are_mixed() {
        assert!(warnings("https://ひらがな한국.com/").contains(&MixedScript));
        assert!(warnings("https://abc例え.jp/").contains(&MixedScript));
    }

    #[test]
    fn digits_and_hyphens_do_not_mix_scripts() {
        assert_eq!(warnings("https://пример-123.рф/"), vec![Punycode]);
        assert_eq!(warnings("https://café-2.fr/"), vec![Punycode]);
    }

    #[test]
    fn mixed_scripts_across_labels_are_fine() {
        assert_eq!(warnings("https://example.рф/"), vec![Punycode]);
    }

    #[test]
    fn bidi_in_path_raw_and_encoded() {
        let a = ok("https://example.com/file\u{202E}gpj.exe");
        assert_eq!(a.warnings, vec![BidiControl]);
        assert!(a.normalized.contains("%E2%80%AE"), "{}", a.normalized);
        assert_eq!(
            warnings("https://example.com/file%E2%80%AEgpj.exe"),
            vec![BidiControl]
        );
        assert_eq!(warnings("https://example.com/?q=%e2%80%ae"), vec![BidiControl]);
        assert_eq!(warnings("https://example.com/#%E2%81%A6x"), vec![BidiControl]);
        assert_eq!(warnings("https://example.com/?a=1&b=%D8%9C"), vec![BidiControl]);
    }

    #[test]
    fn bidi_in_message() {
        let a = analyze_url("https://example.com/", "Sign in to \u{202E}moc.elgoog").unwrap();
        assert_eq!(a.warnings, vec![BidiControl]);
    }

    #[test]
    fn every_bidi_control_is_detected() {
        for c in [
            '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}',
            '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ] {
            assert_eq!(text_warnings(&format!("a{c}b")), vec![BidiControl], "{c:?}");
            assert_eq!(warnings(&format!("https://example.com/{c}")), vec![BidiControl]);
        }
    }

    #[test]
    fn invisible_in_message_and_url() {
        let a = analyze_url("https://example.com/", "Please\u{200B} sign in").unwrap();
        assert_eq!(a.warnings, vec![InvisibleChar]);
        assert_eq!(warnings("https://example.com/a%E2%80%8Bb"), vec![InvisibleChar]);
        assert_eq!(warnings("https://example.com/?x=%C2%AD"), vec![InvisibleChar]);
        // Zero-width chars in the host are dropped by IDNA but still reported.
        let a = ok("https://pay\u{200B}pal.com/");
        assert_eq!(a.host_ascii, "paypal.com");
        assert_eq!(a.warnings, vec![InvisibleChar]);
        let a = ok("https://pay\u{00AD}pal.com/");
        assert_eq!(a.warnings, vec![InvisibleChar]);
    }

    #[test]
    fn every_invisible_char_is_detected() {
        let samples = [
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{2060}',
            '\u{2061}',
            '\u{2062}',
            '\u{2063}',
            '\u{2064}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{180E}',
            '\u{3164}',
            '\u{115F}',
            '\u{1160}',
            '\u{FFA0}',
            '\u{E0000}',
            '\u{E0041}',
            '\u{E007F}',
            '\u{FE00}',
            '\u{FE0F}',
            '\u{0007}',
            '\u{001B}',
            '\u{0085}',
        ];
        for c in samples {
            assert_eq!(text_warnings(&format!("a{c}b")), vec![InvisibleChar], "{c:?}");
            assert!(neutralize(&format!("a{c}b")).contains("⟨U+"), "{c:?}");
        }
        for c in &samples[..samples.len() - 3] {
            assert!(
                warnings(&format!("https://example.com/?{c}")).contains(&InvisibleChar),
                "{c:?}"
            );
        }
    }

    #[test]
    fn emoji_sequences_in_text_are_not_invisible() {
        for s in [
            "\u{26A0}\u{FE0F} Careful",          // ⚠️
            "\u{1F469}\u{200D}\u{1F4BB} coder",  // 👩‍💻
            "\u{2764}\u{FE0F}\u{200D}\u{1F525}", // ❤️‍🔥
            "\u{1F44D}\u{1F3FD}",                // 👍🏽
            "1\u{FE0F}\u{20E3}",                 // 1️⃣
        ] {
            assert_eq!(text_warnings(s), vec![], "{s:?}");
            assert_eq!(neutralize(s), s);
        }
        // But not as a way to hide text or smuggle data.
        assert_eq!(text_warnings("a\u{FE0F}"), vec![InvisibleChar]);
        assert_eq!(text_warnings("\u{26A0}\u{FE0F}\u{FE0F}"), vec![InvisibleChar]);
        assert_eq!(text_warnings("\u{26A0}\u{FE01}"), vec![InvisibleChar]);
        assert_eq!(text_warnings("\u{1F469}\u{200D}x"), vec![InvisibleChar]);
        assert_eq!(text_warnings("a\u{200D}\u{1F4BB}"), vec![InvisibleChar]);
        // A ZWJ only between emoji: not after other non-ASCII letters or symbols (issue 32).
        for s in [
            "é\u{200D}é",
            "→\u{200D}←",
            "例\u{200D}え",
            "€\u{200D}\u{1F4BB}",
            "\u{1F4BB}\u{200D}→",
        ] {
            assert_eq!(text_warnings(s), vec![InvisibleChar], "{s:?}");
            assert!(neutralize(s).contains("⟨U+200D⟩"), "{s:?}");
        }
        assert_eq!(text_warnings("\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}"), vec![]); // 🏳️‍🌈
        assert_eq!(text_warnings("\u{1F600}\u{E0041}"), vec![InvisibleChar]);
        // URLs get no emoji allowance.
        assert_eq!(
            warnings("https://example.com/\u{26A0}\u{FE0F}"),
            vec![InvisibleChar]
        );
    }

    #[test]
    fn text_warnings_only_reports_hidden_chars() {
        assert_eq!(text_warnings("My Agent"), vec![]);
        assert_eq!(text_warnings("\u{0430}pple http://1.2.3.4"), vec![]);
        assert_eq!(text_warnings("line one\nline two\r\n\tindented"), vec![]);
        assert_eq!(
            text_warnings("\u{202E}x\u{200B}\u{202E}"),
            vec![BidiControl, InvisibleChar]
        );
    }

    #[test]
    fn userinfo_is_rejected() {
        for url in [
            "https://a:b@x.com/",
            "https://a@x.com/",
            "https://a:@x.com/",
            "https://:b@x.com/",
            "https://@x.com/",
            "https://:@x.com/",
            "https://accounts.google.com@evil.com/",
            "https:\\\\a@x.com/",
            "https:a@x.com",
        ] {
            assert_eq!(err(url), UrlError::Userinfo, "{url}");
        }
        // An '@' after the authority is fine.
        assert_eq!(warnings("https://x.com/@user?to=a@b.com#@"), vec![]);
    }

    #[test]
    fn unsupported_schemes() {
        for (url, scheme) in [
            ("javascript:alert(1)", "javascript"),
            ("JavaScript:alert(1)", "javascript"),
            ("file:///etc/passwd", "file"),
            ("data:text/html,<script>alert(1)</script>", "data"),
            ("ftp://example.com/file", "ftp"),
            ("ws://example.com/", "ws"),
            ("mailto:a@b.com", "mailto"),
            ("localhost:8080", "localhost"),
        ] {
            assert_eq!(err(url), UrlError::UnsupportedScheme(scheme.into()), "{url}");
        }
    }

    #[test]
    fn relative_and_empty_are_not_absolute() {
        for url in [
            "",
            "/path",
            "example.com",
            "example.com/path",
            "//example.com/",
            "?q",
            "#x",
        ] {
            assert_eq!(err(url), UrlError::NotAbsolute, "{url:?}");
        }
    }

    #[test]
    fn missing_host() {
        for url in [
            "https://",
            "http://",
            "https:///",
            "https://?x",
            "https://#x",
            "https://:443/",
        ] {
            assert_eq!(err(url), UrlError::MissingHost, "{url}");
        }
    }

    #[test]
    fn parse_errors() {
        for url in [
            "https://exa mple.com/",
            " https://example.com/",
            "https://example.com/\n",
            "https://example.com/\tx",
            "https://example.com/\u{0}",
            "https://example.com/\u{00A0}",
            "https://example.com/\u{3000}",
            "https://[::1/",
            "https://exa<mple.com/",
            "https://example.com:99999/",
            "https://1.2.3.256/",
        ] {
            assert!(matches!(err(url), UrlError::Parse(_)), "{url:?}");
        }
        let e = err("https://example.com/\u{7F}");
        assert!(e.to_string().contains("U+007F"), "{e}");
    }

    #[test]
    fn too_long() {
        let url = format!("https://example.com/{}", "a".repeat(70 * 1024));
        assert_eq!(err(&url), UrlError::TooLong(url.len()));
        let at_limit = format!("https://example.com/{}", "a".repeat(MAX_URL_LEN - 20));
        assert_eq!(at_limit.len(), MAX_URL_LEN);
        let a = ok(&at_limit);
        assert_eq!(a.full, at_limit, "never truncated");
    }

    #[test]
    fn registrable_domain_multi_level_and_private_suffixes() {
        let a = ok("https://a.b.example.co.uk/");
        assert_eq!(a.registrable_domain.as_deref(), Some("example.co.uk"));
        assert_eq!(a.registrable_domain_ascii.as_deref(), Some("example.co.uk"));
        assert_eq!(
            ok("https://foo.github.io/x").registrable_domain.as_deref(),
            Some("foo.github.io")
        );
        assert_eq!(
            ok("https://a.foo.github.io/").registrable_domain.as_deref(),
            Some("foo.github.io")
        );
        // Multi-level IDN suffix (東京.jp is a public suffix).
        let a = ok("https://www.例.東京.jp/");
        assert_eq!(a.registrable_domain.as_deref(), Some("例.東京.jp"));
        assert_eq!(
            a.registrable_domain_ascii.as_deref(),
            Some("xn--fsq.xn--1lqs71d.jp")
        );
        // Trailing dot.
        let a = ok("https://www.example.co.uk./");
        assert_eq!(a.host_ascii, "www.example.co.uk.");
        assert_eq!(a.registrable_domain.as_deref(), Some("example.co.uk"));
        // A bare public suffix or single label has none.
        assert_eq!(ok("https://co.uk/").registrable_domain, None);
        assert_eq!(ok("https://intranet/").registrable_domain, None);
        // Unknown TLDs fall back to the last two labels (PSL default rule).
        assert_eq!(
            ok("https://a.foo.unknowntld/").registrable_domain.as_deref(),
            Some("foo.unknowntld")
        );
        // Empty labels don't confuse the lookup.
        assert_eq!(ok("https://a..example.com/").registrable_domain, None);
    }

    #[test]
    fn registrable_domain_unicode_form() {
        let a = ok("https://www.\u{043F}\u{0440}\u{0438}\u{043C}\u{0435}\u{0440}.\u{0440}\u{0444}/");
        assert_eq!(a.registrable_domain.as_deref(), Some("пример.рф"));
        assert_eq!(
            a.registrable_domain_ascii.as_deref(),
            Some("xn--e1afmkfd.xn--p1ai")
        );
    }

    #[test]
    fn warning_codes_and_serde_agree() {
        let all = [
            Punycode,
            MixedScript,
            Confusable,
            BidiControl,
            InvisibleChar,
            IpHost,
            NonHttps,
            UnusualPort,
        ];
        for w in all {
            let json = serde_json::to_string(&w).unwrap();
            assert_eq!(json, format!("\"{}\"", w.code()));
            assert_eq!(serde_json::from_str::<UrlWarning>(&json).unwrap(), w);
            assert!(!w.explanation().is_empty());
        }
        assert!(Confusable.explanation().contains("look-alike"));
        let mut sorted = all;
        sorted.sort();
        assert_eq!(sorted, all, "warnings sort in declaration order");
    }

    #[test]
    fn analysis_serializes_camel_case() {
        let a = ok("https://a.example.co.uk:8443/");
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["hostAscii"], "a.example.co.uk");
        assert_eq!(v["registrableDomain"], "example.co.uk");
        assert_eq!(v["registrableDomainAscii"], "example.co.uk");
        assert_eq!(v["isLoopback"], false);
        assert_eq!(v["port"], 8443);
        assert_eq!(v["warnings"], serde_json::json!(["unusual-port"]));
    }

    #[test]
    fn warnings_are_sorted_and_deduplicated() {
        let a = analyze_url(
            "http://\u{0430}pple.com:81/\u{202E}%E2%80%AE\u{200B}",
            "\u{202E}\u{200B}",
        )
        .unwrap();
        assert_eq!(
            a.warnings,
            vec![
                Punycode,
                MixedScript,
                Confusable,
                BidiControl,
                InvisibleChar,
                NonHttps,
                UnusualPort
            ]
        );
    }

    #[test]
    fn error_messages_are_human() {
        assert_eq!(
            UrlError::Userinfo.to_string(),
            "the URL contains credentials (user:password@), which the protocol forbids"
        );
        assert!(UrlError::TooLong(70_000).to_string().contains("70000"));
        assert!(
            UrlError::UnsupportedScheme("ftp".into())
                .to_string()
                .contains("\"ftp\"")
        );
        for e in [
            UrlError::Parse("x".into()),
            UrlError::NotAbsolute,
            UrlError::MissingHost,
        ] {
            let _: &dyn std::error::Error = &e;
            assert!(e.to_string().starts_with("the URL"));
        }
    }

    #[test]
    fn loopback_helper_matches_analysis() {
        for (ip, expected) in [
            ("127.0.0.1", true),
            ("127.255.0.9", true),
            ("::1", true),
            ("::ffff:127.0.0.1", false),
            ("8.8.8.8", false),
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            let host = match ip {
                IpAddr::V4(v4) => v4.to_string(),
                IpAddr::V6(v6) => format!("[{v6}]"),
            };
            assert_eq!(ok(&format!("http://{host}/")).is_loopback, expected, "{ip}");
        }
    }

    #[test]
    fn weird_inputs_never_panic() {
        let mut inputs: Vec<String> = [
            "%",
            "%%",
            "%zz",
            "https://%",
            "https://%/",
            "https://%zz/",
            "https://a%",
            "[::",
            "https://[::",
            "https://[::]",
            "https://[",
            "https://]",
            "https://[::1]:",
            "https://:",
            "https://.",
            "https://..",
            "https://./",
            "https://a..",
            "https://.a.",
            "http://.localhost",
            "https://xn--/",
            "https://xn--zz/",
            "https://xn--a.com/",
            "https://xn---/",
            "https://-.com/",
            "https:",
            "https:/",
            "https:\\",
            "http:\\\\x",
            "https://x.com:/",
            "https://x.com:0/",
            "https://x.com:65535/",
            "https://x.com:65536/",
            "https://0x/",
            "https://0x100000000/",
            "https://4294967296/",
            "https://1.2.3.4.5/",
            "https://\u{FFFD}/",
            "https://\u{10FFFF}/",
            "https://\u{E0041}.com/",
            "https://\u{202E}.com/",
            "https://\u{FE0F}/",
            "https://\u{0}/",
            "\u{0}",
            "\u{7F}",
            "\u{1B}[31m",
            "\r\n",
            "https://a.com/%E2%80",
            "https://a.com/%F0%9F",
            "https://a.com/%ff%fe",
            "https://a.com/?%",
            "https://a.com/#%",
            "a:b",
            ":",
            "::",
            "://",
            "https://@",
            "https://@@",
            "https://a@b@c/",
            "https://ｘｎ--a.com/",
            "https://ａ。ｂ/",
            "https://\u{3002}/",
            "https://\u{FF0E}com/",
            "https://۱۲۳.com/",
            "https://١٢٣/",
            "https://a\u{0308}.com/",
            "https://\u{0308}/",
            "https://\u{1D7CE}/",
            "https://⑴.com/",
            "https://ß.de/",
            "https://ς.gr/",
            "https://\u{200D}/",
            "https://a\u{200C}b/",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every single control character, and some long pathological strings.
        inputs.extend(
            (0u32..0x20)
                .chain(0x7F..0xA0)
                .filter_map(char::from_u32)
                .map(|c| format!("https://a.com/{c}")),
        );
        inputs.push("%".repeat(MAX_URL_LEN));
        inputs.push(format!("https://{}.com/", "\u{FF41}".repeat(10_000)));
        inputs.push(format!("https://{}/", "a.".repeat(20_000)));
        inputs.push(format!("https://{}", "[".repeat(1000)));
        inputs.push("\u{FE0F}".repeat(1000));
        for s in &inputs {
            let _ = analyze_url(s, s);
            let _ = text_warnings(s);
            assert!(!neutralize(s).contains('\u{202E}'));
        }
    }
}
