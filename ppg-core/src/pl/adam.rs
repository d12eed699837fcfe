//! Adam (Kingma and Ba, 2015) over the logits, minimising.

use super::PlConfig;

/// Applies Adam step number `t` (1-based) with gradient `grad` to `theta`.
///
/// Moments live in `f64` so that the squares of large REINFORCE gradients neither overflow
/// nor lose the small ones; only the logits are `f32`, the type callers hand in.
pub(crate) fn step(
    theta: &mut [f32],
    m: &mut [f64],
    v: &mut [f64],
    grad: &[f64],
    t: u64,
    config: &PlConfig,
) {
    let beta1 = f64::from(config.beta1);
    let beta2 = f64::from(config.beta2);
    // Bias corrections from the step count, not from running products, so that changing the
    // betas between calls cannot leave a stale product behind.
    let t = t as f64;
    let correct1 = 1.0 - libm::pow(beta1, t);
    let correct2 = 1.0 - libm::pow(beta2, t);
    let lr = f64::from(config.lr);
    let eps = f64::from(config.eps);
    for (((theta, m), v), &g) in theta
        .iter_mut()
        .zip(m.iter_mut())
        .zip(v.iter_mut())
        .zip(grad)
    {
        *m = beta1 * *m + (1.0 - beta1) * g;
        *v = beta2 * *v + (1.0 - beta2) * g * g;
        let step = lr * (*m / correct1) / (libm::sqrt(*v / correct2) + eps);
        // Minimising: move against the gradient. The clamp keeps the logit a finite f32
        // whatever the learning rate; it never binds in practice, since a spread of about
        // 40 between logits already makes Gumbel-max sampling deterministic.
        let limit = f64::from(f32::MAX);
        *theta = (f64::from(*theta) - step).clamp(-limit, limit) as f32;
    }
}
