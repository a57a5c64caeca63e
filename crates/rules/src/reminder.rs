//! `<system-reminder type="permission.decision">`: what the model is told
//! after a refusal.

use agentctx_types::{DecisionSubject, RuleDecision, SystemReminderType, system_reminder};

use crate::Rules;

/// A few lines: what was refused, which rule refused it and where that rule
/// is written, and what is allowed instead when an allow list exists.
/// Empty for an allowed decision.
pub fn render_permission_decision(decision: &RuleDecision, rules: &Rules) -> String {
    if decision.allowed {
        return String::new();
    }
    let what = match decision.subject {
        DecisionSubject::Tool => format!("Denied: tool `{}`.", decision.item),
        DecisionSubject::File => format!("Denied: file `{}`.", decision.item),
    };
    let mut body = format!("{what}\nWhy: {}.\n", decision.message);
    let instead = match decision.subject {
        DecisionSubject::Tool => rules.allowed_tool_entries().map(|l| ("Allowed tools", l)),
        DecisionSubject::File => rules
            .include_entries()
            .map(|l| ("Allowed paths (include patterns)", l)),
    };
    if let Some((label, list)) = instead {
        if list.is_empty() {
            body.push_str(&format!("{label}: none.\n"));
        } else {
            let quoted: Vec<String> = list.iter().map(|e| format!("`{e}`")).collect();
            body.push_str(&format!("{label}: {}.\n", quoted.join(", ")));
        }
    }
    body.push_str("Do not retry the same call; use what is allowed, or ask the user.");
    system_reminder(SystemReminderType::PermissionDecision, &body)
}
