fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let t = std::time::Instant::now();
    for _ in 0..n {
        let c = mcpdesc_core::RuleSet::embedded().compile().unwrap();
        std::hint::black_box(c);
    }
    eprintln!("{:?} per load", t.elapsed() / n as u32);
}
