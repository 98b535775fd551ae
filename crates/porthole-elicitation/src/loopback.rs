//! The one rule for "a host on this computer", used wherever Porthole decides it: which URLs
//! get no plain-http, raw-IP or port warnings ([`crate::url_safety`]), which MCP connections
//! may be plain http, which sign-in endpoints may be, and where the stdio bridge may connect.
//! One rule, so a URL one place accepts is never refused by another.
//!
//! This computer is `localhost` (any case, with or without the trailing dot), 127.0.0.0/8 and
//! `::1`. Not loopback:
//! - subdomains of `localhost` (`app.localhost`): RFC 6761 asks resolvers to answer them with
//!   loopback, but glibc without nss-myhostname asks DNS, so Porthole cannot promise where a
//!   request to one goes;
//! - IPv4-mapped spellings (`::ffff:127.0.0.1`): an odd way to write loopback deserves the
//!   warnings, and nothing legitimate needs it.

use std::net::Ipv6Addr;

use url::{Host, Url};

/// Whether `host` is this computer (see the module's rule).
pub fn is_loopback_host<S: AsRef<str>>(host: &Host<S>) -> bool {
    match host {
        Host::Domain(name) => {
            let name = name.as_ref();
            name.strip_suffix('.')
                .unwrap_or(name)
                .eq_ignore_ascii_case("localhost")
        }
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => *ip == Ipv6Addr::LOCALHOST,
    }
}

/// Whether `url`'s host is this computer; a URL with no host is not.
pub fn is_loopback_url(url: &Url) -> bool {
    url.host().is_some_and(|host| is_loopback_host(&host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_computer_is_localhost_127_slash_8_and_ipv6_one() {
        for (url, expected) in [
            ("http://localhost/", true),
            ("http://LOCALHOST./cb", true),
            ("http://127.0.0.1:53211/", true),
            ("http://127.255.0.9/", true),
            ("http://[::1]:9000/", true),
            ("http://app.localhost/", false),
            ("http://localhost.evil.com/", false),
            ("http://[::ffff:127.0.0.1]/", false),
            ("http://128.0.0.1/", false),
            ("http://[::2]/", false),
            ("http://10.0.0.1/", false),
            ("file:///etc/passwd", false),
        ] {
            assert_eq!(is_loopback_url(&Url::parse(url).unwrap()), expected, "{url}");
        }
    }
}
