//! Counting tokens the way the model will, and fitting a budget.

use agentctx_types::FileListFormat;
use tiktoken_rs::CoreBPE;

use crate::error::FileListError;
use crate::listing::Listing;
use crate::render::{RenderOptions, Rendered, render};
use crate::tree::Tree;

/// The tokenizers shipped inside tiktoken-rs (nothing is downloaded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tokenizer {
    /// GPT-4o and later.
    #[default]
    O200k,
    /// GPT-4 and GPT-3.5.
    Cl100k,
}

impl Tokenizer {
    fn bpe(self) -> Result<&'static CoreBPE, FileListError> {
        // The singletons build the encoder once per process (the slow part).
        Ok(match self {
            Self::O200k => tiktoken_rs::o200k_base_singleton(),
            Self::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        })
    }

    /// Tokens in `text`.
    pub fn count(self, text: &str) -> Result<usize, FileListError> {
        Ok(self.bpe()?.encode_ordinary(text).len())
    }

    /// The encoding's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::O200k => "o200k_base",
            Self::Cl100k => "cl100k_base",
        }
    }
}

/// The most detailed rendering that fits `budget` tokens, by search: first a
/// lower `max_depth` (binary search), then, at depth 1, fewer files (binary
/// search), then the compact format. If nothing fits, the smallest
/// rendering, marked partial with the reason.
pub fn fit(
    listing: &Listing,
    tree: &Tree,
    options: &RenderOptions,
    budget: usize,
    tokenizer: Tokenizer,
) -> Result<(Rendered, usize, RenderOptions), FileListError> {
    let try_with = |o: &RenderOptions| -> Attempt {
        let r = render(listing, tree, o);
        let n = tokenizer.count(&r.text)?;
        Ok((r, n))
    };
    let first = try_with(options)?;
    if first.1 <= budget {
        return Ok((first.0, first.1, options.clone()));
    }
    // Largest depth that fits; then, at depth 1, the largest entry count.
    let by_depth = largest_fitting(
        1,
        options.max_depth.saturating_sub(1).max(1),
        budget,
        |mid| RenderOptions {
            max_depth: mid,
            ..options.clone()
        },
        &try_with,
    )?;
    if let Some(found) = by_depth {
        return Ok(mark(found, budget));
    }
    let by_files = largest_fitting(
        1,
        options.max_files.max(1),
        budget,
        |mid| RenderOptions {
            max_depth: 1,
            max_files: mid,
            ..options.clone()
        },
        &try_with,
    )?;
    if let Some(found) = by_files {
        return Ok(mark(found, budget));
    }
    let o = RenderOptions {
        format: FileListFormat::Compact,
        max_depth: 1,
        max_files: 1,
        ..options.clone()
    };
    let (r, n) = try_with(&o)?;
    Ok(mark((r, n, o), budget))
}

/// A rendering and its token count.
type Attempt = Result<(Rendered, usize), FileListError>;
/// The best fitting rendering found, with its count and options.
type Fitted = Option<(Rendered, usize, RenderOptions)>;

/// Binary search over `low..=high` for the largest value whose rendering fits
/// `budget` (token counts grow with the value).
fn largest_fitting(
    mut low: usize,
    mut high: usize,
    budget: usize,
    options_for: impl Fn(usize) -> RenderOptions,
    try_with: &dyn Fn(&RenderOptions) -> Attempt,
) -> Result<Fitted, FileListError> {
    let mut best = None;
    while low <= high {
        let mid = low + (high - low) / 2;
        let o = options_for(mid);
        let (r, n) = try_with(&o)?;
        if n <= budget {
            best = Some((r, n, o));
            low = mid + 1;
        } else {
            high = mid - 1;
        }
    }
    Ok(best)
}

fn mark(
    (mut rendered, tokens, options): (Rendered, usize, RenderOptions),
    budget: usize,
) -> (Rendered, usize, RenderOptions) {
    let reason = if tokens <= budget {
        format!("token budget {budget}")
    } else {
        format!("token budget {budget} cannot be met ({tokens} tokens at the smallest)")
    };
    rendered.partial_reasons.push(reason);
    (rendered, tokens, options)
}
