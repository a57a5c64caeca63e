//! Answers within a budget: whole lines, at most `max_tokens` o200k tokens
//! from a cursor, and a last line naming the cursor that continues.

use agentctx_types::{DEFAULT_MAX_TOKENS, Paging};

/// The page of `text` that `paging` asks for. Byte-stable: the same text
/// and paging give the same page.
pub fn page(text: &str, paging: &Paging) -> String {
    let max = paging.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS) as usize;
    let mut start = usize::try_from(paging.cursor.unwrap_or(0))
        .unwrap_or(usize::MAX)
        .min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let rest = &text[start..];
    let tokenizer = agentctx_filelist::Tokenizer::O200k;
    let mut used = 0;
    let mut end = 0;
    for line in rest.split_inclusive('\n') {
        let cost = tokenizer.count(line);
        if used + cost > max && end > 0 {
            break;
        }
        if used + cost > max {
            // One line over the whole budget: its start, cut on a character.
            let mut cut = (max * 3).min(line.len());
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            end += cut.max(1).min(line.len());
            while !rest.is_char_boundary(end) {
                end += 1;
            }
            break;
        }
        used += cost;
        end += line.len();
    }
    let mut out = rest[..end].to_owned();
    let next = start + end;
    if next < text.len() {
        // On a line of its own, after a line break that is not the text's:
        // the pages, without their last lines, join back into the text.
        out.push_str(&format!(
            "\n[agentctx: {next} of {} bytes shown; call again with cursor={next} for more]\n",
            text.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_whole_lines_and_join_back_to_the_text() {
        let text: String = (0..400).map(|i| format!("line number {i}\n")).collect();
        let mut cursor = 0u64;
        let mut joined = String::new();
        loop {
            let paging = Paging {
                max_tokens: Some(200),
                cursor: Some(cursor),
            };
            let got = page(&text, &paging);
            assert_eq!(got, page(&text, &paging), "byte-stable");
            match got.rsplit_once("\n[agentctx: ") {
                Some((body, footer)) => {
                    joined.push_str(body);
                    let next = footer.split("cursor=").nth(1).unwrap();
                    cursor = next.split(' ').next().unwrap().parse().unwrap();
                }
                None => {
                    joined.push_str(&got);
                    break;
                }
            }
        }
        assert_eq!(joined, text);
    }
}
