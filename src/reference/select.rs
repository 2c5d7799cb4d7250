//! References for `wgsl/select/`: the selected elements in order, then (a partition) the
//! others in order.

/// The elements of `data` where `keep` holds, and the others, each in input order.
pub fn partition<T: Copy>(data: &[T], keep: impl Fn(usize) -> bool) -> (Vec<T>, Vec<T>) {
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    for (i, &x) in data.iter().enumerate() {
        if keep(i) {
            yes.push(x);
        } else {
            no.push(x);
        }
    }
    (yes, no)
}
