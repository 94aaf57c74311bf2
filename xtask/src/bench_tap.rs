//! `cargo xtask bench-tap`: what `mcpdesc tap` adds to each message, and how many messages
//! it passes per second, on the traffic benchmark capture.
//!
//! A replay server (`cargo xtask bench-tap-server`, this binary) plays the server's side of
//! the capture and the driver plays the client's: in *lockstep* each side sends its next
//! message only after it has received the one before it, as in a session, so every message
//! is timed alone from the write of its sender to the read of its receiver. The same replay
//! runs once with the server started directly and once with it started under `mcpdesc tap`;
//! the tap's cost is the difference. In *flood* both sides write all their messages at once,
//! and the figure is the whole exchange's time. Sender and receiver are different processes,
//! so their stamps are the system clock's nanoseconds, which all processes share.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// Lockstep replays of each kind, alternating, so that a slow moment of the machine falls on
/// both; the latencies of all the rounds are pooled.
const ROUNDS: usize = 3;
/// The tap's added latency per message the figures are held to, at the 99th percentile.
pub(crate) const P99_TARGET_MS: f64 = 1.0;

/// One message of the capture, as its sender writes it.
#[derive(Debug, Clone)]
struct Message {
    from_client: bool,
    line: String,
}

fn messages(capture: &str) -> Result<Vec<Message>> {
    let mut out = Vec::new();
    for (n, line) in capture.lines().enumerate() {
        let record: Value =
            serde_json::from_str(line).with_context(|| format!("capture line {}", n + 1))?;
        let from_client = match record["dir"].as_str() {
            Some("c2s") => true,
            Some("s2c") => false,
            other => bail!("capture line {}: direction {other:?}", n + 1),
        };
        out.push(Message {
            from_client,
            line: serde_json::to_string(&record["msg"])?,
        });
    }
    Ok(out)
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Reads message `i` (`m`), sent by `from`, and returns when it arrived; it must arrive
/// unchanged.
fn receive(
    input: &mut impl BufRead,
    line: &mut String,
    m: &Message,
    i: usize,
    from: &str,
) -> Result<u64> {
    line.clear();
    if input.read_line(line)? == 0 {
        bail!("the {from}'s side ended before message {}", i + 1);
    }
    let at = now_ns();
    if line.trim_end_matches('\n') != m.line {
        bail!("message {} arrived changed", i + 1);
    }
    Ok(at)
}

/// The closing summary line of the tap's log at `log`.
fn tap_summary(log: &Path) -> String {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .rev()
        .find(|l| l.starts_with("mcpdesc tap:"))
        .unwrap_or_default()
        .to_owned()
}

/// `cargo xtask bench-tap-server CAPTURE STAMPS [--flood]`: the server's side of the replay.
/// It writes to STAMPS, per message, when it received (client messages) or sent (its own) it.
pub(crate) fn server_cmd(args: &[String]) -> Result<()> {
    let [capture, stamps, rest @ ..] = args else {
        bail!("usage: cargo xtask bench-tap-server CAPTURE STAMPS [--flood]");
    };
    let flood = rest.iter().any(|a| a == "--flood");
    let messages = messages(&std::fs::read_to_string(capture)?)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut stamp = vec![0u64; messages.len()];
    if flood {
        let expected = messages.iter().filter(|m| m.from_client).count();
        let reader = std::thread::spawn(move || {
            let mut input = BufReader::new(std::io::stdin().lock());
            let mut line = String::new();
            let mut seen = 0usize;
            while seen < expected && input.read_line(&mut line).unwrap_or(0) > 0 {
                seen += 1;
                line.clear();
            }
            seen
        });
        for m in messages.iter().filter(|m| !m.from_client) {
            out.write_all(m.line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
        let seen = reader.join().unwrap_or(0);
        if seen != expected {
            bail!("the server received {seen} of {expected} client messages");
        }
    } else {
        let mut input = BufReader::new(std::io::stdin().lock());
        let mut line = String::new();
        for (i, m) in messages.iter().enumerate() {
            if m.from_client {
                stamp[i] = receive(&mut input, &mut line, m, i, "client")?;
            } else {
                stamp[i] = now_ns();
                out.write_all(m.line.as_bytes())?;
                out.write_all(b"\n")?;
                out.flush()?;
            }
        }
    }
    std::fs::write(stamps, serde_json::to_string(&stamp)?)?;
    Ok(())
}

/// How the replay server is started: directly, or under the tap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Direct,
    Tap,
}

/// One lockstep replay: each message's time from its write to its read, in nanoseconds.
#[derive(Debug, Default)]
struct Lockstep {
    latencies: Vec<u64>,
    wall: Duration,
}

struct Replay<'a> {
    mcpdesc: &'a Path,
    capture: &'a Path,
    messages: &'a [Message],
    work: PathBuf,
}

impl Replay<'_> {
    fn command(&self, route: Route, flood: bool, stamps: &Path, log: &Path) -> Result<Command> {
        let me = std::env::current_exe()?;
        let mut server = vec![
            me.into_os_string(),
            "bench-tap-server".into(),
            self.capture.as_os_str().to_owned(),
            stamps.as_os_str().to_owned(),
        ];
        if flood {
            server.push("--flood".into());
        }
        let mut cmd = match route {
            Route::Direct => {
                let mut c = Command::new(&server[0]);
                c.args(&server[1..]);
                c
            }
            Route::Tap => {
                let mut c = Command::new(self.mcpdesc);
                c.arg("tap").arg("--log").arg(log).arg("--");
                c.args(&server);
                c
            }
        };
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        Ok(cmd)
    }

    fn lockstep(&self, route: Route) -> Result<Lockstep> {
        let stamps = self.work.join("stamps.json");
        let log = self.work.join("tap.log");
        let mut child = self.command(route, false, &stamps, &log)?.spawn()?;
        let mut to = child.stdin.take().context("no stdin")?;
        let mut from = BufReader::new(child.stdout.take().context("no stdout")?);
        let mut mine = vec![0u64; self.messages.len()];
        let mut line = String::new();
        let start = Instant::now();
        for (i, m) in self.messages.iter().enumerate() {
            if m.from_client {
                mine[i] = now_ns();
                to.write_all(m.line.as_bytes())?;
                to.write_all(b"\n")?;
                to.flush()?;
            } else {
                mine[i] = receive(&mut from, &mut line, m, i, "server")?;
            }
        }
        let wall = start.elapsed();
        drop(to);
        let status = child.wait()?;
        if !status.success() {
            bail!("the replay server ended with {status}");
        }
        let theirs: Vec<u64> = serde_json::from_str(&std::fs::read_to_string(&stamps)?)?;
        // The first message waits for the server to start, which is no latency of either
        // route.
        let latencies = self
            .messages
            .iter()
            .zip(mine.iter().zip(&theirs))
            .skip(1)
            .map(|(m, (&mine, &theirs))| {
                if m.from_client {
                    theirs.saturating_sub(mine)
                } else {
                    mine.saturating_sub(theirs)
                }
            })
            .collect();
        Ok(Lockstep { latencies, wall })
    }

    /// Both sides write everything at once; the time until the last message has arrived.
    fn flood(&self, route: Route) -> Result<(Duration, String)> {
        let stamps = self.work.join("stamps.json");
        let log = self.work.join("tap-flood.log");
        let _ = std::fs::remove_file(&log);
        let start = Instant::now();
        self.exchange_flood(self.command(route, true, &stamps, &log)?)?;
        let wall = start.elapsed();
        let summary = tap_summary(&log);
        Ok((wall, summary))
    }

    /// Starts `cmd` and plays the client's side of a flood against it to the end.
    fn exchange_flood(&self, mut cmd: Command) -> Result<()> {
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
        let mut to = child.stdin.take().context("no stdin")?;
        let from = BufReader::new(child.stdout.take().context("no stdout")?);
        let lines: Vec<String> = self
            .messages
            .iter()
            .filter(|m| m.from_client)
            .map(|m| m.line.clone())
            .collect();
        let writer = std::thread::spawn(move || -> std::io::Result<()> {
            let mut to = std::io::BufWriter::new(&mut to);
            for l in &lines {
                to.write_all(l.as_bytes())?;
                to.write_all(b"\n")?;
            }
            to.flush()
        });
        let expected = self.messages.iter().filter(|m| !m.from_client).count();
        let got = from.lines().take(expected).count();
        writer
            .join()
            .map_err(|_| anyhow::anyhow!("the writer failed"))??;
        let status = child.wait()?;
        if got != expected || !status.success() {
            bail!("flood: {got} of {expected} server messages arrived; the server ended with {status}");
        }
        Ok(())
    }
}

/// The figures of one run of the benchmark.
#[derive(Debug)]
pub(crate) struct TapFigures {
    pub messages: usize,
    pub bytes: usize,
    direct: Lockstep,
    tapped: Lockstep,
    flood_direct: Duration,
    flood_tapped: Duration,
    /// The tap's closing summary after the lockstep replays and after the flood.
    lockstep_summary: String,
    flood_summary: String,
    /// Peak resident memory of the tap during a flood, in KiB.
    flood_peak_kib: Option<u64>,
}

impl TapFigures {
    /// The tap's added latency at quantile `q` (0–1), in milliseconds.
    pub(crate) fn added_ms(&self, q: f64) -> f64 {
        (quantile(&self.tapped.latencies, q) - quantile(&self.direct.latencies, q)) / 1e6
    }
}

/// The `q` quantile (nearest rank) of `v`, in the units of `v`.
fn quantile(v: &[u64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_unstable();
    if s.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len());
    s[rank - 1] as f64
}

/// Runs the benchmark with the release `mcpdesc` at `mcpdesc` on the capture at `capture`.
pub(crate) fn measure(mcpdesc: &Path, capture: &Path) -> Result<TapFigures> {
    let text = std::fs::read_to_string(capture)?;
    let messages = messages(&text)?;
    let work = crate::bench_report::target_dir().join("bench-tap");
    std::fs::create_dir_all(&work)?;
    let replay = Replay {
        mcpdesc,
        capture,
        messages: &messages,
        work,
    };
    // A first replay of each warms the page cache and the tap's catalogue load.
    replay.lockstep(Route::Direct)?;
    replay.lockstep(Route::Tap)?;
    let mut direct = Lockstep::default();
    let mut tapped = Lockstep::default();
    let mut lockstep_summary = String::new();
    for _ in 0..ROUNDS {
        let d = replay.lockstep(Route::Direct)?;
        direct.latencies.extend(d.latencies);
        direct.wall += d.wall;
        let t = replay.lockstep(Route::Tap)?;
        tapped.latencies.extend(t.latencies);
        tapped.wall += t.wall;
        lockstep_summary = tap_summary(&replay.work.join("tap.log"));
    }
    let mut flood_direct = Vec::new();
    let mut flood_tapped = Vec::new();
    let mut flood_summary = String::new();
    for _ in 0..ROUNDS {
        flood_direct.push(replay.flood(Route::Direct)?.0);
        let (wall, summary) = replay.flood(Route::Tap)?;
        flood_tapped.push(wall);
        flood_summary = summary;
    }
    flood_direct.sort();
    flood_tapped.sort();
    let flood_peak_kib = peak_of_flood(&replay);
    Ok(TapFigures {
        messages: messages.len(),
        bytes: text.len(),
        direct,
        tapped,
        flood_direct: flood_direct[ROUNDS / 2],
        flood_tapped: flood_tapped[ROUNDS / 2],
        lockstep_summary,
        flood_summary,
        flood_peak_kib,
    })
}

/// The tap's maximum resident set during one flood, from `/usr/bin/time -v`.
fn peak_of_flood(replay: &Replay<'_>) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let stamps = replay.work.join("stamps.json");
    let log = replay.work.join("tap-peak.log");
    let inner = replay.command(Route::Tap, true, &stamps, &log).ok()?;
    let report = replay.work.join("time.txt");
    let mut cmd = Command::new(time);
    cmd.arg("-v")
        .arg("-o")
        .arg(&report)
        .arg(inner.get_program())
        .args(inner.get_args());
    replay.exchange_flood(cmd).ok()?;
    std::fs::read_to_string(report)
        .ok()?
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
}

/// The `## Tap` section of `docs/performance.md`.
pub(crate) fn render(w: &mut String, f: &TapFigures) -> std::fmt::Result {
    let ms = |v: f64| v / 1e6;
    writeln!(w, "## Tap")?;
    writeln!(w)?;
    writeln!(
        w,
        "`mcpdesc tap` (release build) between a replay of the traffic capture's two sides \
         (`xtask/src/bench_tap.rs`, `cargo xtask bench-tap`): {} messages, {} bytes. In \
         lockstep each side sends its next message only after it has received the one before, \
         as in a session, and each message is timed from its sender's write to its receiver's \
         read (but the first, which waits for the server to start); {ROUNDS} replays with the server started directly alternate with {ROUNDS} with \
         it started under the tap, which checks every message beside the forwarding. The \
         added latency is the difference of the two distributions at each percentile. In the \
         flood both sides write all their messages at once (median of {ROUNDS}); answers then \
         overtake their requests, so the flood's findings are those of a scrambled session, \
         and what it shows is whether the checker keeps up.",
        crate::bench_report::thousands(f.messages as u64),
        crate::bench_report::thousands(f.bytes as u64),
    )?;
    writeln!(w)?;
    writeln!(w, "| per message | p50 | p90 | p99 | max |")?;
    writeln!(w, "|---|---:|---:|---:|---:|")?;
    for (name, l) in [("direct", &f.direct), ("through the tap", &f.tapped)] {
        writeln!(
            w,
            "| {name} | {:.3} ms | {:.3} ms | {:.3} ms | {:.3} ms |",
            ms(quantile(&l.latencies, 0.5)),
            ms(quantile(&l.latencies, 0.9)),
            ms(quantile(&l.latencies, 0.99)),
            ms(quantile(&l.latencies, 1.0)),
        )?;
    }
    writeln!(
        w,
        "| **added by the tap** | **{:.3} ms** | {:.3} ms | **{:.3} ms** | |",
        f.added_ms(0.5),
        f.added_ms(0.9),
        f.added_ms(0.99),
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "Through the tap a message took {:.3} ms or less in 99 cases of 100, all included, \
         which bounds what the tap adds. A negative difference means the replay through the \
         tap was the faster one at that percentile: waking a reader that sleeps on an idle \
         machine costs more than the tap's two extra hops while its threads keep the cores \
         busy, so what the tap adds is below what this measurement separates from that.",
        ms(quantile(&f.tapped.latencies, 0.99))
    )?;
    writeln!(w)?;
    let rate = |n: usize, d: Duration| n as f64 / d.as_secs_f64();
    let mib = |d: Duration| f.bytes as f64 / d.as_secs_f64() / (1024.0 * 1024.0);
    let per_replay = |d: Duration| d / u32::try_from(ROUNDS).unwrap_or(1);
    writeln!(
        w,
        "| throughput | time | messages per second | MiB per second |"
    )?;
    writeln!(w, "|---|---:|---:|---:|")?;
    for (name, d) in [
        ("lockstep, direct", per_replay(f.direct.wall)),
        ("lockstep, through the tap", per_replay(f.tapped.wall)),
        ("flood, direct", f.flood_direct),
        ("flood, through the tap", f.flood_tapped),
    ] {
        writeln!(
            w,
            "| {name} | {:.1} ms | {:.0} | {:.1} |",
            d.as_secs_f64() * 1e3,
            rate(f.messages, d),
            mib(d)
        )?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "The tap's own summary, after a lockstep replay: `{}`; after a flood: `{}`.",
        f.lockstep_summary, f.flood_summary
    )?;
    if let Some(kib) = f.flood_peak_kib {
        writeln!(
            w,
            "Peak resident memory of the tap during a flood: {:.1} MiB.",
            kib as f64 / 1024.0
        )?;
    }
    writeln!(w)?;
    let p99 = f.added_ms(0.99);
    writeln!(
        w,
        "Target (added latency under {P99_TARGET_MS} ms per message at the 99th percentile): {}.",
        if p99 < P99_TARGET_MS {
            "met"
        } else {
            "**missed**"
        }
    )?;
    Ok(())
}

/// `cargo xtask bench-tap [--write]`: builds the release binary and the capture, measures,
/// prints the section, and with `--write` puts it in place in `docs/performance.md`.
pub(crate) fn bench_tap_cmd(args: &[String]) -> Result<()> {
    let ws = crate::workspace();
    let status = crate::bench_report::cargo()
        .current_dir(&ws)
        .args(["build", "--release", "-q", "-p", "mcpdesc-cli"])
        .status()?;
    if !status.success() {
        bail!("building the release binary failed");
    }
    let mcpdesc = crate::bench_report::target_dir().join("release/mcpdesc");
    let corpus = crate::bench_report::default_corpus_dir();
    std::fs::create_dir_all(&corpus)?;
    let capture = corpus.join("traffic.ndjson");
    std::fs::write(&capture, crate::bench_traffic::capture(&ws)?)?;
    let figures = measure(&mcpdesc, &capture)?;
    let mut section = String::new();
    render(&mut section, &figures)?;
    print!("{section}");
    if args.iter().any(|a| a == "--write") {
        let path = ws.join("docs/performance.md");
        let page = std::fs::read_to_string(&path)?;
        std::fs::write(&path, replace_section(&page, "## Tap", &section))?;
        eprintln!("wrote the Tap section of {}", path.display());
    }
    Ok(())
}

/// `page` with the section that starts at the line `heading` replaced by `section` (up to
/// the next `## ` heading or the hand-written notes), or `section` added after the traffic
/// section, where `bench-report` writes it, when absent.
pub(crate) fn replace_section(page: &str, heading: &str, section: &str) -> String {
    let start = page
        .match_indices(&format!("\n{heading}\n"))
        .next()
        .map(|(i, _)| i + 1);
    match start {
        Some(start) => {
            let after = &page[start + heading.len()..];
            // The section ends at the next heading or at the hand-written notes, whichever
            // comes first.
            let end = [
                after.find("\n## ").map(|i| i + 1),
                after.find(crate::bench_report::NOTES_START),
            ]
            .into_iter()
            .flatten()
            .min()
            .map_or(page.len(), |i| start + heading.len() + i);
            format!("{}{section}\n{}", &page[..start], &page[end..])
        }
        None => match page
            .find("\n## Reference documents\n")
            .map(|i| i + 1)
            .or_else(|| page.find(crate::bench_report::NOTES_START))
        {
            Some(i) => format!("{}{section}\n{}", &page[..i], &page[i..]),
            None => format!("{page}\n{section}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::replace_section;
    use crate::bench_report::NOTES_START;

    #[test]
    fn the_section_is_put_after_the_traffic_section_and_then_replaced_in_place() {
        let page =
            format!("## Traffic\n\nt\n\n## Reference documents\n\nr\n\n{NOTES_START}\n## Notes\n");
        let once = replace_section(&page, "## Tap", "## Tap\n\none\n");
        assert_eq!(
            once,
            format!("## Traffic\n\nt\n\n## Tap\n\none\n\n## Reference documents\n\nr\n\n{NOTES_START}\n## Notes\n")
        );
        let twice = replace_section(&once, "## Tap", "## Tap\n\ntwo\n");
        assert_eq!(twice, once.replace("one", "two"));
        // Last before the notes, the section ends at them.
        let last = format!("## Traffic\n\n## Tap\n\nold\n\n{NOTES_START}\n## Notes\n");
        assert_eq!(
            replace_section(&last, "## Tap", "## Tap\n\nnew\n"),
            format!("## Traffic\n\n## Tap\n\nnew\n\n{NOTES_START}\n## Notes\n")
        );
    }
}
