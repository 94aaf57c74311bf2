//! The tool's allocator and when it returns freed memory to the system.
//!
//! The benchmarks and the measuring commands of the workspace's task runner include this file,
//! so that their figures are the tool's.

use tikv_jemalloc_ctl::{Access, AsName};

// Validation allocates many small, short-lived values; glibc's allocator spent a third of a
// large document's time consolidating its fragmented heap.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// From now on, memory freed is returned to the system at once.
///
/// Call it once the catalogue is compiled, before documents are read. A validation run frees
/// its large buffers (a document's node arrays as they grow, compiled schemas, working sets)
/// on one thread while another allocates: pages kept for reuse were then counted on top of
/// the new ones, and returning them at once lowered the peak of `validate large.json` from 53
/// to 45 MiB at no measurable cost in time. Compiling the catalogue is the opposite case:
/// thousands of short-lived parse trees and regex-compiler tables of the same few sizes,
/// whose pages are better reused than given back and faulted in again; so the allocator keeps
/// its default until then.
pub fn return_freed_memory_at_once() {
    // Arenas created later take the defaults; the existing ones are set one by one (writing
    // to an arena that was never initialised fails, and is ignored).
    for name in ["arenas.dirty_decay_ms", "arenas.muzzy_decay_ms"] {
        let _ = format!("{name}\0").as_str().name().write(0isize);
    }
    let arenas: u32 = b"arenas.narenas\0".name().read().unwrap_or(0);
    for i in 0..arenas {
        for kind in ["dirty", "muzzy"] {
            let _ = format!("arena.{i}.{kind}_decay_ms\0")
                .as_str()
                .name()
                .write(0isize);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_arena_returns_freed_memory_at_once_afterwards() {
        use tikv_jemalloc_ctl::{Access, AsName};
        // An arena of this thread's own, in use before the call.
        let kept: Vec<u8> = vec![1; 1 << 20];
        super::return_freed_memory_at_once();
        let read = |name: &str| -> isize { format!("{name}\0").as_str().name().read().unwrap() };
        assert_eq!(read("arenas.dirty_decay_ms"), 0);
        assert_eq!(read("arenas.muzzy_decay_ms"), 0);
        let arenas: u32 = b"arenas.narenas\0".name().read().unwrap();
        let mut initialised = 0;
        for i in 0..arenas {
            // Arenas never initialised cannot be read.
            let Ok::<isize, _>(ms) = format!("arena.{i}.dirty_decay_ms\0").as_str().name().read()
            else {
                continue;
            };
            assert_eq!(ms, 0, "arena {i}");
            initialised += 1;
        }
        assert!(initialised > 0);
        drop(kept);
    }
}
