//! A starting description from what a live server reports in each protocol version it
//! negotiates: its info, its capabilities and every entry of its lists, each declaration
//! scoped to the versions that reported it as written, and what declarations of one entry
//! share written once, in components (see `share`).
//!
//! Every name the description uses comes from the catalogue (`live`, `scope`,
//! `spec-version-pointer`, the release), and which members a version can carry from its
//! rules (see `repair`).

mod build;
mod observed;
mod repair;
mod share;
mod yaml;

use mcpdesc_core::{Catalogue, Engine};
use serde_json::Value;

use crate::ServerReport;

pub use yaml::to_yaml;

/// The description, and the versions it covers.
#[derive(Debug)]
pub struct Draft {
    /// The drafted description.
    pub document: Value,
    /// The protocol versions the server negotiated, which the description covers, oldest first.
    pub versions: Vec<String>,
}

/// Why no description could be drafted.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The catalogue says nothing about live servers.
    #[error("the catalogue has no `live` section")]
    NoLiveSection,
    #[error(
        "the catalogue's `live` section has no `init`: it does not say how to make a description"
    )]
    /// The catalogue's `live` section does not say how to make a description.
    NoInit,
    /// The catalogue does not say where a description names its specification version.
    #[error("the catalogue has no `spec-version-pointer`: it does not say where a description names its specification version")]
    NoSpecVersionPointer,
    /// The catalogue's root scope (the JSONPath, as written) is not one member of the root, so
    /// the drafted description has nowhere to list its protocol versions.
    #[error("the catalogue's root scope `{0}` is not one root member")]
    RootScope(String),
    /// The server negotiated none of the protocol versions asked for.
    #[error("the server negotiated none of the protocol versions asked for")]
    NoVersion,
}

/// The description of the server that gave `reports`; an error when it negotiated no
/// version at all.
pub fn draft(engine: &Engine, reports: &[ServerReport]) -> Result<Draft, InitError> {
    let cat = engine.catalogue();
    let shape = shape(cat)?;
    let live = cat.def.live.as_ref().ok_or(InitError::NoLiveSection)?;
    let drop = live
        .init
        .as_ref()
        .map(|i| i.drop.as_slice())
        .unwrap_or_default();
    // Catalogue order is oldest first.
    let order: Vec<&str> = cat.versions.iter().map(|(_, name)| name).collect();
    let mut observed = observed::Observed::new(live, drop, &order, reports);
    if observed.versions.is_empty() {
        return Err(InitError::NoVersion);
    }
    let mut document = repair::settle(engine, &shape, &mut observed);
    if let Some(refs) = &cat.def.references {
        share::share(&mut document, refs, &live.lists);
    }
    Ok(Draft {
        document,
        versions: observed.versions,
    })
}

/// Where the parts of a description go, from the catalogue.
fn shape(cat: &Catalogue) -> Result<build::Shape, InitError> {
    let live = cat.def.live.as_ref().ok_or(InitError::NoLiveSection)?;
    let Some(init) = live.init.as_ref() else {
        return Err(InitError::NoInit);
    };
    let Some(spec_pointer) = cat.def.spec_version_pointer.clone() else {
        return Err(InitError::NoSpecVersionPointer);
    };
    // The root scope is a JSONPath; a description writes it as one root member.
    let Some(root_versions) = cat
        .def
        .scope
        .root
        .strip_prefix("$.")
        .filter(|m| !m.contains(['.', '[']))
    else {
        return Err(InitError::RootScope(cat.def.scope.root.clone()));
    };
    Ok(build::Shape {
        spec_pointer,
        spec_version: cat.release.version.to_string(),
        info: init.info.clone(),
        info_members: init.info_members.clone(),
        root_versions: root_versions.to_owned(),
        scope_member: cat.def.scope.member.clone(),
        capabilities: live.capabilities.clone(),
    })
}
