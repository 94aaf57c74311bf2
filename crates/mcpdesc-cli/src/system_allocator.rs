//! The allocator policy of a build without jemalloc (the command inside the Python and Node
//! packages, whose host process owns the allocator): nothing to switch.

/// See the jemalloc build's `prepare_for_document`; the system allocator has no such switch.
pub(crate) fn prepare_for_document(_len: u64) {}

/// See the jemalloc build's `return_freed_memory_at_once`; nothing to do here.
#[cfg_attr(not(feature = "lsp"), allow(dead_code))]
pub(crate) fn return_freed_memory_at_once() {}
