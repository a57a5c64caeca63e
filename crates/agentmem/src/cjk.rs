//! Search in scripts written without spaces (Chinese, Japanese, and Korean
//! words with their particles attached).
//!
//! FTS5's `unicode61` tokenizer makes a whole run of such characters one
//! token, so `フロー` never finds `認証フローを調査`. Each run is therefore
//! also indexed as overlapping bigrams (`認証 証フ フロ ロー ーを …`, the
//! run's last character alone at its end) in a column of its own, and a
//! query run becomes the phrase of its bigrams in that column: an exact
//! substring match, ranked by the same bm25 as everything else. One
//! character is a prefix query (every position starts exactly one token).
//! Bigrams, not FTS5's `trigram` tokenizer: two-character words (`認証`,
//! `調査`) are the most common query in Japanese and Chinese, and trigram
//! indexes cannot answer them.

/// Whether `c` belongs to a script written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'   // Hiragana, Katakana
        | '\u{31F0}'..='\u{31FF}' // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}' // half-width Katakana
        | '\u{1100}'..='\u{11FF}' // Hangul Jamo
        | '\u{3130}'..='\u{318F}' // Hangul compatibility Jamo
        | '\u{AC00}'..='\u{D7AF}' // Hangul syllables
        | '\u{20000}'..='\u{2FA1F}' // CJK extensions B and later
    )
}

/// The runs of CJK characters in `text`.
pub fn runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_cjk(c)).filter(|r| !r.is_empty())
}

/// The bigram tokens of one run, the last character alone at its end.
fn bigrams(run: &str) -> Vec<String> {
    let chars: Vec<char> = run.chars().collect();
    let mut tokens: Vec<String> = chars.windows(2).map(|w| w.iter().collect()).collect();
    if let Some(last) = chars.last() {
        tokens.push(last.to_string());
    }
    tokens
}

/// What the CJK column of the index holds for `text`: the bigrams of each
/// run. The single character that ends a run also keeps a query phrase
/// (bigrams only) from matching across two runs.
pub fn index_text(text: &str) -> String {
    runs(text)
        .map(|run| bigrams(run).join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The FTS5 query for one run of a search term, restricted to `column`.
pub fn query_run(column: &str, run: &str) -> String {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() == 1 {
        return format!("{column} : \"{run}\"*");
    }
    let phrase: Vec<String> = chars.windows(2).map(|w| w.iter().collect()).collect();
    format!("{column} : \"{}\"", phrase.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_cut_at_every_other_script() {
        assert_eq!(
            runs("OAuth 認証フローを調査, 인증을 확인").collect::<Vec<_>>(),
            ["認証フローを調査", "인증을", "확인"]
        );
    }

    #[test]
    fn index_text_is_overlapping_bigrams_and_the_last_character() {
        assert_eq!(
            index_text("a 認証フロー b 調"),
            "認証 証フ フロ ロー ー\n調"
        );
    }

    #[test]
    fn query_runs_are_phrases_of_bigrams_or_a_prefix() {
        assert_eq!(query_run("cjk", "フロー"), "cjk : \"フロ ロー\"");
        assert_eq!(query_run("cjk", "認証"), "cjk : \"認証\"");
        assert_eq!(query_run("cjk", "認"), "cjk : \"認\"*");
    }
}
