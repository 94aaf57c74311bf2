//! The exit status a subcommand chooses. Not `std::process::ExitCode`, whose value cannot be
//! read back: the Python and Node packages hand the number to their own process exit.

/// A subcommand's exit status, with the constructors of `std::process::ExitCode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExitCode(pub(crate) u8);

impl ExitCode {
    /// Exit status 0.
    pub(crate) const SUCCESS: ExitCode = ExitCode(0);
    /// Exit status 1.
    pub(crate) const FAILURE: ExitCode = ExitCode(1);
}

impl From<u8> for ExitCode {
    fn from(code: u8) -> Self {
        ExitCode(code)
    }
}
