use ppg_core::{Dims, Ppg, SamplerMode};
fn main() {
    let dims = Dims::new(20, 4, 1);
    let mut mem = vec![0u8; Ppg::bytes(dims)];
    let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
    ppg.start(20, 4, 0.5).unwrap();
    let mut out = vec![0u16; 80];
    let mut acc = 0.0;
    for _ in 0..100_000 {
        acc += ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
    }
    println!("{acc}");
}
