//! A positive integer that config files cannot get wrong quietly.

#[cfg(feature = "schema")]
use std::borrow::Cow;
use std::fmt;
use std::num::NonZeroU64;

#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An integer greater than zero, used for every limit in the config.
///
/// Deserializing rejects `0`, negative numbers, floats (even `3.0`) and
/// strings with a message that says what was given, so a config error can
/// name the field and the bad value.
///
/// ```
/// use agentctx_types::PositiveInt;
/// let limit: PositiveInt = serde_json::from_str("16").unwrap();
/// assert_eq!(limit.get(), 16);
/// assert!(serde_json::from_str::<PositiveInt>("0").is_err());
/// assert!(serde_json::from_str::<PositiveInt>("2.5").is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PositiveInt(NonZeroU64);

impl PositiveInt {
    /// Returns `Some` for any value above zero.
    pub const fn new(value: u64) -> Option<Self> {
        match NonZeroU64::new(value) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// The value as a plain integer.
    pub const fn get(self) -> u64 {
        self.0.get()
    }

    /// The value as `usize`, saturating on targets where `usize` is smaller.
    pub fn get_usize(self) -> usize {
        usize::try_from(self.get()).unwrap_or(usize::MAX)
    }

    /// For `const` defaults only: evaluated at compile time, so a zero
    /// fails the build instead of panicking at run time.
    pub(crate) const fn known(value: u64) -> Self {
        match NonZeroU64::new(value) {
            Some(v) => Self(v),
            None => panic!("a default limit must be positive"),
        }
    }
}

impl fmt::Display for PositiveInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for PositiveInt {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.get())
    }
}

impl<'de> Deserialize<'de> for PositiveInt {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PositiveIntVisitor)
    }
}

struct PositiveIntVisitor;

const EXPECTED: &str = "a positive integer (1 or more)";

impl Visitor<'_> for PositiveIntVisitor {
    type Value = PositiveInt;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<PositiveInt, E> {
        PositiveInt::new(v).ok_or_else(|| E::custom(format!("expected {EXPECTED}, got 0")))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<PositiveInt, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::custom(format!("expected {EXPECTED}, got {v}"))),
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<PositiveInt, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::custom(format!(
                "expected {EXPECTED}, got {v} (too large)"
            ))),
        }
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<PositiveInt, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::custom(format!("expected {EXPECTED}, got {v}"))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<PositiveInt, E> {
        Err(E::custom(format!("expected {EXPECTED}, got the float {v}")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<PositiveInt, E> {
        Err(E::custom(format!(
            "expected {EXPECTED}, got the string {v:?}"
        )))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<PositiveInt, E> {
        Err(E::custom(format!("expected {EXPECTED}, got {v}")))
    }

    fn visit_unit<E: de::Error>(self) -> Result<PositiveInt, E> {
        Err(E::custom(format!("expected {EXPECTED}, got null")))
    }
}

#[cfg(feature = "schema")]
impl JsonSchema for PositiveInt {
    fn schema_name() -> Cow<'static, str> {
        "PositiveInt".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "minimum": 1 })
    }
}
