//! Providers as data: built-in presets (`openai`, `anthropic`, `deepseek`,
//! `openrouter`, `vllm`, `llamacpp`, `ollama`) that `autoMode.providers`
//! entries override field by field, and the resolution of
//! `autoMode.classifierModel: "provider/model-id"` plus the key (the only
//! thing read from the environment) into one `Provider`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::config::{Config, ProviderSettings};

/// The two wire formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OpenAI Chat Completions (`POST {base}/chat/completions`).
    OpenAi,
    /// Anthropic Messages (`POST {base}/v1/messages`).
    Anthropic,
}

/// How the detailed stage asks for the one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolChoice {
    /// `{"type":"function","function":{"name":…}}` / `{"type":"tool",…}`.
    Named,
    /// `"required"` as a string (llama.cpp ignores the object form).
    Required,
    /// No `tool_choice` at all (Ollama does not support it).
    Omitted,
}

/// A resolved provider: everything a request needs.
#[derive(Clone)]
pub struct Provider {
    pub name: String,
    pub model: String,
    pub format: Format,
    pub base_url: String,
    /// The key, from the environment variable `key_env`.
    pub key: Option<String>,
    pub key_env: String,
    pub headers: Vec<(String, String)>,
    /// `max_tokens` or `max_completion_tokens`.
    pub max_tokens_field: String,
    pub tool_choice: ToolChoice,
    pub extra_body_fast: Option<Value>,
    pub extra_body_detail: Option<Value>,
    pub context_window: u64,
    pub tools_in_fast_stage: bool,
    pub reasoning_level: Option<String>,
    pub timeout: Duration,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("Provider")
            .field("name", &self.name)
            .field("model", &self.model)
            .field("format", &self.format)
            .field("base_url", &self.base_url)
            .field("key_present", &self.key.is_some())
            .field("key_env", &self.key_env)
            .finish_non_exhaustive()
    }
}

/// A built-in preset: (name, settings, why).
fn presets() -> Vec<(&'static str, ProviderSettings, &'static str)> {
    let p = |format: &str,
             base: &str,
             key: &str,
             field: &str,
             choice: &str,
             window: u64,
             tools_fast: bool,
             requires_key: bool| ProviderSettings {
        format: Some(format.into()),
        base_url: Some(base.into()),
        api_key_env: Some(key.into()),
        headers: None,
        max_tokens_field: Some(field.into()),
        tool_choice_style: Some(choice.into()),
        extra_body_fast: None,
        extra_body_detail: None,
        context_window: Some(window),
        tools_in_fast_stage: Some(tools_fast),
        requires_key: Some(requires_key),
    };
    let no_thinking = json!({"thinking": {"type": "disabled"}});
    let require_parameters = json!({"provider": {"require_parameters": true}});
    vec![
        (
            "openai",
            p(
                "openai",
                "https://api.openai.com/v1",
                "OPENAI_API_KEY",
                "max_completion_tokens",
                "named",
                128_000,
                true,
                true,
            ),
            "OpenAI Chat Completions",
        ),
        (
            "anthropic",
            p(
                "anthropic",
                "https://api.anthropic.com",
                "ANTHROPIC_API_KEY",
                "max_tokens",
                "named",
                200_000,
                true,
                true,
            ),
            "Anthropic Messages (strict tools, prompt caching)",
        ),
        (
            "deepseek",
            ProviderSettings {
                extra_body_fast: Some(no_thinking.clone()),
                extra_body_detail: Some(no_thinking),
                ..p(
                    "openai",
                    "https://api.deepseek.com/beta",
                    "DEEPSEEK_API_KEY",
                    "max_tokens",
                    "named",
                    128_000,
                    true,
                    true,
                )
            },
            "DeepSeek (beta base for strict tools; thinking off, it is on by default)",
        ),
        (
            "openrouter",
            ProviderSettings {
                extra_body_fast: Some(require_parameters.clone()),
                extra_body_detail: Some(require_parameters),
                ..p(
                    "openai",
                    "https://openrouter.ai/api/v1",
                    "OPENROUTER_API_KEY",
                    "max_tokens",
                    "named",
                    128_000,
                    true,
                    true,
                )
            },
            "OpenRouter (only backends that honour tools)",
        ),
        (
            "vllm",
            p(
                "openai",
                "http://127.0.0.1:8000/v1",
                "VLLM_API_KEY",
                "max_tokens",
                "named",
                32_768,
                true,
                false,
            ),
            "a local vLLM server",
        ),
        (
            "llamacpp",
            p(
                "openai",
                "http://127.0.0.1:8080/v1",
                "LLAMACPP_API_KEY",
                "max_tokens",
                "required",
                8_192,
                false,
                false,
            ),
            "a local llama.cpp server (tool_choice as a string; no tools with grammars)",
        ),
        (
            "ollama",
            p(
                "openai",
                "http://127.0.0.1:11434/v1",
                "OLLAMA_API_KEY",
                "max_tokens",
                "none",
                8_192,
                false,
                false,
            ),
            "a local Ollama server (no tool_choice: a weak guarantee)",
        ),
    ]
}

/// The preset names, for messages and `automode defaults`.
pub fn preset_lines() -> Vec<String> {
    presets()
        .into_iter()
        .map(|(name, s, why)| {
            format!(
                "{name:11} {} {}: {why}",
                s.format.unwrap_or_default(),
                s.base_url.unwrap_or_default()
            )
        })
        .collect()
}

/// Why no classifier can be used.
pub const NO_MODEL: &str = "No classifier model/API key available; auto mode fails closed.";

/// `autoMode.classifierModel` that turns the classifier off on purpose.
pub const OFF: &str = "none";

/// The classifier used when none is configured, from the key the
/// harness's environment already holds: checked in this order.
pub const FROM_ENVIRONMENT: &[(&str, &str, &str)] = &[
    (
        "ANTHROPIC_API_KEY",
        "anthropic/claude-haiku-4-5",
        "Claude Code's users usually have it; Haiku is Anthropic's small fast model",
    ),
    (
        "OPENAI_API_KEY",
        "openai/gpt-5-mini",
        "Codex's users usually have it; gpt-5-mini is OpenAI's small fast model",
    ),
];

/// Which classifier model is in force and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// `autoMode.classifierModel` as configured.
    Configured { spec: String, source: String },
    /// None configured: resolved from a key in the environment.
    FromEnvironment { spec: String, var: &'static str },
    /// `autoMode.classifierModel: "none"`.
    Off { source: String },
    /// None configured and no key in the environment.
    Missing,
}

impl Choice {
    /// `provider/model`, when there is one.
    pub fn spec(&self) -> Option<&str> {
        match self {
            Choice::Configured { spec, .. } | Choice::FromEnvironment { spec, .. } => Some(spec),
            Choice::Off { .. } | Choice::Missing => None,
        }
    }

    /// Where it comes from, in words.
    pub fn source(&self) -> String {
        match self {
            Choice::Configured { source, .. } => source.clone(),
            Choice::FromEnvironment { var, .. } => format!("from {var} in the environment"),
            Choice::Off { source } => source.clone(),
            Choice::Missing => "not configured, and no provider key in the environment".into(),
        }
    }

    /// The user is the only reviewer: no classifier can be asked.
    pub fn unavailable(&self) -> bool {
        matches!(self, Choice::Off { .. } | Choice::Missing)
    }
}

/// The classifier model in force: configured, else from the environment.
pub fn choice(cfg: &Config, var: &dyn Fn(&str) -> Option<String>) -> Choice {
    match &cfg.classifier_model {
        Some(m) if m.value.trim() == OFF => Choice::Off {
            source: m.source.to_string(),
        },
        Some(m) => Choice::Configured {
            spec: m.value.clone(),
            source: m.source.to_string(),
        },
        None => FROM_ENVIRONMENT
            .iter()
            .find(|(v, ..)| var(v).is_some_and(|k| !k.trim().is_empty()))
            .map_or(Choice::Missing, |(v, spec, _)| Choice::FromEnvironment {
                spec: (*spec).to_string(),
                var: v,
            }),
    }
}

/// Resolve the model in force into a provider. `var` reads the shim's
/// own environment (keys, and for a model taken from the environment
/// the same SDK's base URL).
pub fn resolve(cfg: &Config, var: &dyn Fn(&str) -> Option<String>) -> Result<Provider, String> {
    let chosen = choice(cfg, var);
    let spec = match &chosen {
        Choice::Missing => {
            return Err(format!(
                "{NO_MODEL} (autoMode.classifierModel is not set and neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is in the environment)"
            ));
        }
        Choice::Off { source } => {
            return Err(format!(
                "the classifier is off on purpose (autoMode.classifierModel \"none\" in {source})"
            ));
        }
        Choice::Configured { spec, .. } | Choice::FromEnvironment { spec, .. } => spec.clone(),
    };
    let Some((name, model)) = spec
        .split_once('/')
        .filter(|(n, m)| !n.is_empty() && !m.is_empty())
    else {
        return Err(format!(
            "{NO_MODEL} (autoMode.classifierModel {spec:?} from {} is not provider/model-id)",
            chosen.source()
        ));
    };
    let mut settings = presets()
        .into_iter()
        .find(|(n, ..)| *n == name)
        .map(|(_, s, _)| s)
        .unwrap_or_default();
    if let Some((over, _)) = cfg.providers.get(name) {
        settings.overlay(over);
    }
    // A model taken from the environment goes where that SDK would: the
    // harness's gateway, when it sets one.
    if matches!(chosen, Choice::FromEnvironment { .. })
        && !cfg.providers.contains_key(name)
        && let Some(base) = [
            ("anthropic", "ANTHROPIC_BASE_URL"),
            ("openai", "OPENAI_BASE_URL"),
        ]
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, v)| var(v))
        .filter(|b| b.starts_with("http://") || b.starts_with("https://"))
    {
        settings.base_url = Some(base);
    }
    let format = match settings.format.as_deref() {
        Some("openai") => Format::OpenAi,
        Some("anthropic") => Format::Anthropic,
        Some(other) => {
            return Err(format!(
                "{NO_MODEL} (provider {name}: format {other:?} is not openai or anthropic)"
            ));
        }
        None => {
            return Err(format!(
                "{NO_MODEL} (provider {name} is not a preset and has no format; add autoMode.providers.{name})"
            ));
        }
    };
    let Some(base_url) = settings
        .base_url
        .clone()
        .filter(|b| b.starts_with("http://") || b.starts_with("https://"))
    else {
        return Err(format!(
            "{NO_MODEL} (provider {name} has no http(s) baseUrl)"
        ));
    };
    let key_env = settings
        .api_key_env
        .clone()
        .unwrap_or_else(|| format!("{}_API_KEY", name.to_ascii_uppercase()));
    let mut key = var(&key_env).filter(|k| !k.trim().is_empty());
    let mut bearer_anthropic = false;
    if key.is_none()
        && format == Format::Anthropic
        && settings.api_key_env.as_deref() == Some("ANTHROPIC_API_KEY")
    {
        // The Anthropic SDK's other variable: a bearer token (gateways).
        key = var("ANTHROPIC_AUTH_TOKEN").filter(|k| !k.trim().is_empty());
        bearer_anthropic = key.is_some();
    }
    if key.is_none() && settings.requires_key.unwrap_or(true) {
        return Err(format!(
            "{NO_MODEL} (provider {name}: ${key_env} is not set)"
        ));
    }
    let mut headers: Vec<(String, String)> = Vec::new();
    match (format, &key) {
        (Format::OpenAi, Some(k)) => headers.push(("Authorization".into(), format!("Bearer {k}"))),
        (Format::Anthropic, Some(k)) if bearer_anthropic => {
            headers.push(("Authorization".into(), format!("Bearer {k}")))
        }
        (Format::Anthropic, Some(k)) => headers.push(("x-api-key".into(), k.clone())),
        (_, None) => {}
    }
    if format == Format::Anthropic {
        headers.push(("anthropic-version".into(), "2023-06-01".into()));
    }
    for (k, v) in settings.headers.clone().unwrap_or_default() {
        headers.retain(|(h, _)| !h.eq_ignore_ascii_case(&k));
        headers.push((k, v));
    }
    let tool_choice = match settings.tool_choice_style.as_deref().unwrap_or("named") {
        "named" => ToolChoice::Named,
        "required" => ToolChoice::Required,
        "none" | "omitted" => ToolChoice::Omitted,
        other => {
            return Err(format!(
                "{NO_MODEL} (provider {name}: toolChoiceStyle {other:?} is not named, required or none)"
            ));
        }
    };
    let max_tokens_field = settings
        .max_tokens_field
        .clone()
        .unwrap_or_else(|| "max_tokens".into());
    if !matches!(
        max_tokens_field.as_str(),
        "max_tokens" | "max_completion_tokens"
    ) {
        return Err(format!(
            "{NO_MODEL} (provider {name}: maxTokensField must be max_tokens or max_completion_tokens)"
        ));
    }
    Ok(Provider {
        name: name.to_string(),
        model: model.to_string(),
        format,
        base_url: base_url.trim_end_matches('/').to_string(),
        key,
        key_env,
        headers,
        max_tokens_field,
        tool_choice,
        extra_body_fast: settings.extra_body_fast.clone(),
        extra_body_detail: settings.extra_body_detail.clone(),
        context_window: settings.context_window.unwrap_or(32_768),
        tools_in_fast_stage: settings.tools_in_fast_stage.unwrap_or(false),
        reasoning_level: cfg
            .classifier_reasoning_level
            .as_ref()
            .map(|r| r.value.clone()),
        timeout: Duration::from_millis(cfg.classifier_timeout_ms.value.clamp(100, 600_000)),
    })
}

impl Provider {
    /// The endpoint URL.
    pub fn url(&self) -> String {
        match self.format {
            Format::OpenAi => format!("{}/chat/completions", self.base_url),
            Format::Anthropic if self.base_url.ends_with("/v1") => {
                format!("{}/messages", self.base_url)
            }
            Format::Anthropic => format!("{}/v1/messages", self.base_url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Source, Sourced};

    fn cfg(model: &str) -> Config {
        let mut c = crate::config::load(&crate::config::LoadInput {
            managed: None,
            home: None,
            xdg_config_home: None,
            cwd: None,
            inline: None,
        })
        .unwrap_or_else(|e| panic!("{e}"));
        c.classifier_model = Some(Sourced {
            value: model.into(),
            source: Source::Inline,
        });
        c
    }

    #[test]
    fn presets_resolve_with_keys_from_their_variables() {
        let env = |k: &str| {
            (k == "OPENAI_API_KEY" || k == "ANTHROPIC_API_KEY").then(|| "sk-test".to_string())
        };
        let p = resolve(&cfg("openai/gpt-5-mini"), &env).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.url(), "https://api.openai.com/v1/chat/completions");
        assert!(
            p.headers
                .contains(&("Authorization".into(), "Bearer sk-test".into()))
        );
        assert_eq!(p.max_tokens_field, "max_completion_tokens");
        let p = resolve(&cfg("anthropic/claude-haiku-4-5"), &env).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.url(), "https://api.anthropic.com/v1/messages");
        assert!(p.headers.contains(&("x-api-key".into(), "sk-test".into())));
        assert!(
            p.headers
                .contains(&("anthropic-version".into(), "2023-06-01".into()))
        );
        assert!(!format!("{p:?}").contains("sk-test"));
        // Local presets run without a key.
        let p = resolve(&cfg("llamacpp/smollm2"), &|_| None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.tool_choice, ToolChoice::Required);
        assert!(p.key.is_none());
    }

    #[test]
    fn missing_model_key_or_provider_fails_closed() {
        let mut c = cfg("openai/x");
        assert!(resolve(&c, &|_| None).is_err_and(|e| e.starts_with(NO_MODEL)));
        c.classifier_model = None;
        assert!(resolve(&c, &|_| None).is_err_and(|e| e.starts_with(NO_MODEL)));
        assert!(resolve(&cfg("mystery/x"), &|_| Some("k".into())).is_err());
        assert!(resolve(&cfg("openai"), &|_| Some("k".into())).is_err());
    }

    #[test]
    fn without_a_model_the_environment_key_chooses_one_in_order() {
        let mut c = cfg("x/y");
        c.classifier_model = None;
        let both = |k: &str| match k {
            "ANTHROPIC_API_KEY" | "OPENAI_API_KEY" => Some("sk".to_string()),
            "ANTHROPIC_BASE_URL" => Some("http://127.0.0.1:9".to_string()),
            _ => None,
        };
        assert_eq!(
            choice(&c, &both),
            Choice::FromEnvironment {
                spec: "anthropic/claude-haiku-4-5".into(),
                var: "ANTHROPIC_API_KEY"
            }
        );
        let p = resolve(&c, &both).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.url(), "http://127.0.0.1:9/v1/messages");
        let openai = |k: &str| (k == "OPENAI_API_KEY").then(|| "sk".to_string());
        let p = resolve(&c, &openai).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.url(), "https://api.openai.com/v1/chat/completions");
        assert_eq!(p.model, "gpt-5-mini");
        // An empty key is no key.
        assert_eq!(choice(&c, &|_| Some(" ".into())), Choice::Missing);
        // "none" turns it off whatever the environment holds.
        let off = cfg(OFF);
        assert!(choice(&off, &both).unavailable());
        assert!(resolve(&off, &both).is_err_and(|e| e.contains("off on purpose")));
    }

    #[test]
    fn config_overrides_a_preset_field_by_field() {
        let mut c = cfg("openai/m");
        c.providers.insert(
            "openai".into(),
            (
                ProviderSettings {
                    base_url: Some("http://127.0.0.1:9/v1".into()),
                    api_key_env: Some("MY_KEY".into()),
                    ..ProviderSettings::default()
                },
                Source::Inline,
            ),
        );
        let p =
            resolve(&c, &|k| (k == "MY_KEY").then(|| "x".into())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.url(), "http://127.0.0.1:9/v1/chat/completions");
        assert_eq!(p.max_tokens_field, "max_completion_tokens");
        let mut c = cfg("mine/m");
        c.providers.insert(
            "mine".into(),
            (
                ProviderSettings {
                    format: Some("openai".into()),
                    base_url: Some("http://127.0.0.1:9/v1".into()),
                    requires_key: Some(false),
                    ..ProviderSettings::default()
                },
                Source::Inline,
            ),
        );
        assert!(resolve(&c, &|_| None).is_ok());
    }
}
