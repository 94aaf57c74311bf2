//! A description written by `init` checks clean against the server it came
//! from; a copy edited by hand (one tool renamed, one schema changed, one capability dropped)
//! gives exactly those three findings. Against the official `server-everything` and a
//! server written with the official Python SDK.
//!
//! The tests skip, with the reason printed, only when the install of the servers fails
//! because a package registry cannot be reached.

mod support;

use support::live_check::{assert_round_trip, Server};
use support::live_servers::{everything_stdio, python_sdk_server, real_servers_installed};

#[test]
fn server_everything_round_trip() {
    if !real_servers_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_round_trip(dir.path(), &Server::Stdio(everything_stdio()));
}

#[test]
fn python_sdk_server_round_trip() {
    if !real_servers_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_round_trip(dir.path(), &Server::Stdio(python_sdk_server()));
}
