//! Errors as one line of text for front ends that report them in their own messages (the
//! language server's), worded as the command line prints them.

use std::error::Error;

/// `error` and each of its causes, outermost first, joined by `: `: the text `anyhow` gives
/// for `{:#}`, so that the editor and the terminal say the same.
pub fn with_causes(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn causes_follow_the_error() {
        let e = crate::config::ConfigError::Read {
            path: "mcpdesc.toml".into(),
            source: std::io::Error::other("gone"),
        };
        assert_eq!(super::with_causes(&e), "cannot read mcpdesc.toml: gone");
    }
}
