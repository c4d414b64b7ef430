//! Fuzz target: the classifier's answers as they come over the wire (any
//! bytes as a response body, in both formats and both stages). Never a
//! panic; an answer is used only when it is exactly what the stage asks
//! for: a detailed decision's verdict and tier agree and it has a reason.
#![no_main]

use automode::classifier::provider::Format;
use automode::classifier::wire::{self, Answer, Stage};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() > 16384 {
        return;
    }
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    for format in [Format::OpenAi, Format::Anthropic] {
        let _ = wire::usage(format, &body);
        let _ = wire::stop_reason(format, &body);
        for stage in [Stage::Fast, Stage::Detail] {
            match wire::parse(format, stage, &body) {
                Ok(Answer::Review(_)) => assert_eq!(stage, Stage::Fast),
                Ok(Answer::Decision(d)) => {
                    assert_eq!(stage, Stage::Detail);
                    assert!(!d.reason.trim().is_empty());
                    let agree = if d.allow {
                        matches!(d.tier.as_str(), "allow" | "explicit_intent" | "none")
                    } else {
                        matches!(d.tier.as_str(), "hard_deny" | "soft_deny" | "none")
                    };
                    assert!(agree, "decision and tier disagree: {d:?}");
                }
                Err(_) => {}
            }
        }
    }
    let _ = wire::validate(&body);
});
