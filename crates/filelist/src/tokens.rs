//! Counting tokens the way the model will, and fitting a budget.

use agentctx_types::FileListFormat;
#[cfg(feature = "tokens")]
use tiktoken_rs::CoreBPE;

use crate::classify::Class;
use crate::line_counts::LineCounts;
use crate::listing::Listing;
use crate::render::{RenderOptions, Rendered, render};
use crate::select::Order;
use crate::tree::Tree;

/// The tokenizers shipped inside tiktoken-rs (nothing is downloaded).
///
/// Without the `tokens` feature there is no vocabulary: a text counts as
/// its length in bytes, an upper bound of its tokens in both encodings, so
/// a listing fitted that way never overruns its budget (it uses less of
/// it), and counts are kept apart from real ones (the encoding's name is
/// `bytes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tokenizer {
    /// GPT-4o and later.
    #[default]
    O200k,
    /// GPT-4 and GPT-3.5.
    Cl100k,
}

agentctx_types::from_name!(Tokenizer, "tokenizer", [
    "o200k" => Tokenizer::O200k,
    "cl100k" => Tokenizer::Cl100k,
]);

impl Tokenizer {
    #[cfg(feature = "tokens")]
    fn bpe(self) -> &'static CoreBPE {
        // The singletons build the encoder once per process (the slow
        // part), from vocabularies compiled into tiktoken-rs: nothing to
        // fail on.
        match self {
            Self::O200k => tiktoken_rs::o200k_base_singleton(),
            Self::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        }
    }

    /// Tokens in `text`.
    #[cfg(feature = "tokens")]
    pub fn count(self, text: &str) -> usize {
        self.bpe().encode_ordinary(text).len()
    }

    /// Bytes in `text`: the upper bound of its tokens (no `tokens` feature).
    #[cfg(not(feature = "tokens"))]
    pub fn count(self, text: &str) -> usize {
        text.len()
    }

    /// The encoding's name.
    #[cfg(feature = "tokens")]
    pub fn name(self) -> &'static str {
        match self {
            Self::O200k => "o200k_base",
            Self::Cl100k => "cl100k_base",
        }
    }

    /// `bytes`: what is counted without the `tokens` feature.
    #[cfg(not(feature = "tokens"))]
    pub fn name(self) -> &'static str {
        "bytes"
    }
}

/// Whether a text fits a budget: by its byte length when that decides
/// (an o200k or cl100k token covers at least one byte), else by counting
/// its lines (kept counts first; the tokenizer only for new lines).
struct Fits<'c> {
    budget: usize,
    counts: &'c LineCounts,
}

impl Fits<'_> {
    fn check(&self, text: &str) -> bool {
        text.len() <= self.budget || self.counts.count(text) <= self.budget
    }
}

/// The listing with the most entries of `order` that fits `budget` tokens:
/// all of it when it fits; else the largest prefix of the ranking that
/// fits (binary search, first on byte length, which needs no tokenizer,
/// then on tokens). Compact is the other candidate: chosen when asked for
/// and it fits, or when the best tree or flat listing leaves High or
/// Normal top-level entries unnamed (a small budget on a wide project)
/// and compact, which names them all, fits. If nothing
/// fits, the smallest listing, marked partial with the reason.
pub fn fit(
    listing: &Listing,
    tree: &Tree,
    classes: &[Class],
    order: &Order,
    options: &RenderOptions,
    budget: usize,
    counts: &LineCounts,
) -> (Rendered, RenderOptions) {
    let fits = Fits { budget, counts };
    let with = |format: FileListFormat, entries: usize, named: Option<usize>| RenderOptions {
        format,
        max_files: entries,
        budget: named,
        ..options.clone()
    };
    let listing_format = match options.format {
        FileListFormat::Compact => FileListFormat::Tree,
        other => other,
    };
    let compact = || {
        let o = with(FileListFormat::Compact, 0, None);
        let r = render(listing, tree, classes, order, &o);
        fits.check(&r.text).then_some((r, o))
    };
    if options.format == FileListFormat::Compact
        && let Some(found) = compact()
    {
        return found;
    }
    // Everything the limits allow (`max_files` set by hand is a ceiling).
    let most = order.len().min(options.max_files);
    // Every entry is a line of at least one token: more entries than the
    // budget has tokens cannot fit, so the whole listing is not rendered.
    if most <= budget {
        let o = with(listing_format, most, None);
        let whole = render(listing, tree, classes, order, &o);
        if fits.check(&whole.text) {
            return (whole, o);
        }
    }
    let most = most.min(budget.max(1));
    let at = |n: usize| {
        let o = with(listing_format, n, Some(budget));
        (render(listing, tree, classes, order, &o), o)
    };
    // Largest n whose bytes fit: it fits in tokens too, so it bounds the
    // token search from below.
    let by_bytes = largest(0, most - 1, |n| at(n).0.text.len() <= budget);
    let low = by_bytes.unwrap_or(0);
    let best = largest(low, most - 1, |n| fits.check(&at(n).0.text));
    let Some(n) = best else {
        // Not even the header and footer fit.
        let (mut r, o) = at(0);
        let tokens = counts.count(&r.text);
        r.partial_reasons.push(format!(
            "token budget {budget} cannot be met ({tokens} tokens at the smallest)"
        ));
        return (r, o);
    };
    let (rendered, o) = at(n);
    // (Asked for compact, it was tried first and did not fit.)
    if rendered.top_hidden > 0
        && options.format != FileListFormat::Compact
        && let Some(found) = compact()
    {
        return found;
    }
    (rendered, o)
}

/// The largest value in `low..=high` for which `fits` holds, by binary
/// search (the listing grows with the entry count).
fn largest(mut low: usize, mut high: usize, fits: impl Fn(usize) -> bool) -> Option<usize> {
    let mut best = None;
    while low <= high {
        let mid = low + (high - low) / 2;
        if fits(mid) {
            best = Some(mid);
            low = mid + 1;
        } else if mid == 0 {
            break;
        } else {
            high = mid - 1;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::largest;
    use proptest::prelude::*;

    #[test]
    fn largest_finds_the_edge_and_says_when_nothing_fits() {
        assert_eq!(largest(0, 10, |n| n <= 4), Some(4));
        assert_eq!(largest(0, 10, |_| true), Some(10));
        assert_eq!(largest(0, 10, |_| false), None);
        assert_eq!(largest(3, 3, |n| n == 3), Some(3));
        assert_eq!(largest(5, 2, |_| true), None);
    }

    proptest! {
        /// For any monotone predicate (fits up to `edge`), the search finds
        /// the edge, or nothing when the edge is below the range.
        #[test]
        fn largest_agrees_with_a_linear_scan(low in 0usize..50, span in 0usize..200, edge in 0usize..300) {
            let high = low + span;
            let fits = |n: usize| n <= edge;
            let expected = (low..=high).rev().find(|&n| fits(n));
            prop_assert_eq!(largest(low, high, fits), expected);
        }
    }
}
