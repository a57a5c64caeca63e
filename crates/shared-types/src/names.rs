//! Enums whose values have one name each (`--agent claude`, `--format
//! tree`): parsed by `FromStr`, with an error that lists the names.

/// A name that is none of the values it should be one of (`--format`,
/// `--agent`, ...): the `FromStr` error of the named enums.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name:?} is not a {what}; expected one of: {}", .expected.join(", "))]
pub struct UnknownName {
    /// What was asked for (`file list format`).
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// The names accepted.
    pub expected: &'static [&'static str],
}

/// `FromStr` for an enum whose values have one name each.
#[macro_export]
macro_rules! from_name {
    ($ty:ty, $what:literal, [$($name:literal => $value:expr),+ $(,)?]) => {
        impl std::str::FromStr for $ty {
            type Err = $crate::UnknownName;
            fn from_str(name: &str) -> Result<Self, Self::Err> {
                match name {
                    $($name => Ok($value),)+
                    _ => Err($crate::UnknownName {
                        what: $what,
                        name: name.to_owned(),
                        expected: &[$($name),+],
                    }),
                }
            }
        }
    };
}

#[cfg(test)]
mod name_tests {
    use crate::{Agent, FileListFormat};

    #[test]
    fn names_parse_to_their_values_and_others_say_what_is_accepted() {
        assert_eq!("codex".parse::<Agent>(), Ok(Agent::Codex));
        assert_eq!(
            "compact".parse::<FileListFormat>(),
            Ok(FileListFormat::Compact)
        );
        let error = "Tree".parse::<FileListFormat>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "\"Tree\" is not a file list format; expected one of: tree, flat, compact"
        );
    }
}
