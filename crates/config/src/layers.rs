//! Merging config sources leaf by leaf while remembering who set each leaf.

use std::collections::BTreeMap;

use agentctx_types::ConfigOrigin;
use serde_json::{Map, Value};

/// One value a source sets, at a key path. Arrays are single leaves: a later
/// source replaces a list, it does not append to it.
#[derive(Debug, Clone)]
pub struct Leaf {
    pub path: Vec<String>,
    pub value: Value,
    pub origin: ConfigOrigin,
}

/// Splits a parsed source into its leaves, in document order.
pub fn leaves_of(value: &Value, origin: &ConfigOrigin) -> Vec<Leaf> {
    let mut out = Vec::new();
    collect(value, &mut Vec::new(), origin, &mut out);
    out
}

fn collect(value: &Value, path: &mut Vec<String>, origin: &ConfigOrigin, out: &mut Vec<Leaf>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                path.push(key.clone());
                collect(child, path, origin, out);
                path.pop();
            }
        }
        // An empty document sets nothing.
        Value::Null if path.is_empty() => {}
        _ => out.push(Leaf {
            path: path.clone(),
            value: value.clone(),
            origin: origin.clone(),
        }),
    }
}

/// A tree built from leaves, lowest precedence applied first.
#[derive(Debug, Default)]
pub struct Merged {
    pub tree: Map<String, Value>,
    pub origins: BTreeMap<String, ConfigOrigin>,
}

impl Merged {
    pub fn apply(&mut self, leaf: Leaf) {
        let Some((last, parents)) = leaf.path.split_last() else {
            return;
        };
        let mut node = &mut self.tree;
        for key in parents {
            let slot = node
                .entry(key.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            let Value::Object(child) = slot else { return };
            node = child;
        }
        // `section:` with nothing after it is YAML null; it means "no
        // settings here", not "erase the section". A null on a scalar key
        // does erase it (`projectRootOverride: ~` unsets a lower layer's).
        if leaf.value.is_null() && node.get(last).is_some_and(Value::is_object) {
            return;
        }
        node.insert(last.clone(), leaf.value);
        self.origins.insert(leaf.path.join("."), leaf.origin);
    }
}

/// The dotted key and value of every leaf of `value`, in serialization order.
pub fn flatten(value: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    flatten_into(value, &mut String::new(), &mut out);
    out
}

fn flatten_into(value: &Value, prefix: &mut String, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) if !map.is_empty() || prefix.is_empty() => {
            for (key, child) in map {
                let before = prefix.len();
                if !prefix.is_empty() {
                    prefix.push('.');
                }
                prefix.push_str(key);
                flatten_into(child, prefix, out);
                prefix.truncate(before);
            }
        }
        _ => out.push((prefix.clone(), value.clone())),
    }
}

/// Wraps `value` in objects along `path`: `["a","b"]`, 1 → `{"a":{"b":1}}`.
pub fn nest(path: &[String], value: Value) -> Value {
    path.iter().rev().fold(value, |inner, key| {
        let mut map = Map::new();
        map.insert(key.clone(), inner);
        Value::Object(map)
    })
}
