//! `assets/ram_baseline.json`: the committed numbers every build is compared
//! with. A flat JSON object of unsigned integers (or `null`), written and
//! read here without a JSON dependency.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// RAM may grow by this much without touching the baseline.
pub const RAM_GROWTH_BYTES: i64 = 64;
/// Flash may grow by this much without touching the baseline.
pub const FLASH_GROWTH_BYTES: i64 = 1024;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    pub static_ram: u32,
    pub flash: u32,
    /// Static stack bound, `None` when unbounded.
    pub stack_bound: Option<u32>,
    pub measured_peak: u32,
    /// static RAM + max(measured peak, finite static bound).
    pub total_ram: u32,
}

impl Baseline {
    pub fn to_json(&self) -> String {
        let opt = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_else(|| "null".into());
        let mut s = String::from("{\n");
        let _ = writeln!(s, "  \"static_ram\": {},", self.static_ram);
        let _ = writeln!(s, "  \"flash\": {},", self.flash);
        let _ = writeln!(s, "  \"stack_bound\": {},", opt(self.stack_bound));
        let _ = writeln!(s, "  \"measured_peak\": {},", self.measured_peak);
        let _ = writeln!(s, "  \"total_ram\": {}", self.total_ram);
        s.push_str("}\n");
        s
    }

    pub fn from_json(text: &str) -> Result<Baseline, String> {
        let body = text.trim();
        let body = body
            .strip_prefix('{')
            .and_then(|b| b.strip_suffix('}'))
            .ok_or("the baseline is not a JSON object")?;
        let mut fields: BTreeMap<String, Option<u32>> = BTreeMap::new();
        for part in body.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once(':').ok_or_else(|| format!("bad baseline field `{part}`"))?;
            let k = k.trim().trim_matches('"').to_string();
            let v = v.trim();
            let v = if v == "null" {
                None
            } else {
                Some(v.parse::<u32>().map_err(|_| format!("baseline field `{k}` is not a number: `{v}`"))?)
            };
            fields.insert(k, v);
        }
        let need = |k: &str| -> Result<u32, String> {
            fields.get(k).copied().flatten().ok_or_else(|| format!("baseline field `{k}` is missing"))
        };
        Ok(Baseline {
            static_ram: need("static_ram")?,
            flash: need("flash")?,
            stack_bound: fields.get("stack_bound").copied().flatten(),
            measured_peak: need("measured_peak")?,
            total_ram: need("total_ram")?,
        })
    }

    /// Lines `name  old -> new  (+d)` for every field, and the growth
    /// failures beyond the thresholds.
    pub fn diff(&self, now: &Baseline) -> (String, Vec<String>) {
        let mut s = String::new();
        let row = |s: &mut String, name: &str, old: Option<u32>, new: Option<u32>| {
            let show = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_else(|| "unbounded".into());
            let delta = match (old, new) {
                (Some(o), Some(n)) => format!("{:+}", n as i64 - o as i64),
                (None, None) => "0".into(),
                _ => "changed".into(),
            };
            let _ = writeln!(s, "    {:<16}{:>10} -> {:<10} ({delta})", name, show(old), show(new));
        };
        row(&mut s, "static RAM", Some(self.static_ram), Some(now.static_ram));
        row(&mut s, "stack bound", self.stack_bound, now.stack_bound);
        row(&mut s, "measured peak", Some(self.measured_peak), Some(now.measured_peak));
        row(&mut s, "total RAM", Some(self.total_ram), Some(now.total_ram));
        row(&mut s, "flash", Some(self.flash), Some(now.flash));
        let mut fails = Vec::new();
        let ram_growth = now.total_ram as i64 - self.total_ram as i64;
        if ram_growth > RAM_GROWTH_BYTES {
            fails.push(format!(
                "RAM grew by {ram_growth} B (> {RAM_GROWTH_BYTES} B) against assets/ram_baseline.json; if intended, run `cargo xtask ram --update-baseline` and commit the baseline with the change"
            ));
        }
        let flash_growth = now.flash as i64 - self.flash as i64;
        if flash_growth > FLASH_GROWTH_BYTES {
            fails.push(format!(
                "flash grew by {flash_growth} B (> {FLASH_GROWTH_BYTES} B) against assets/ram_baseline.json; if intended, run `cargo xtask ram --update-baseline` and commit the baseline with the change"
            ));
        }
        (s, fails)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let b = Baseline { static_ram: 242, flash: 8714, stack_bound: None, measured_peak: 300, total_ram: 542 };
        assert_eq!(Baseline::from_json(&b.to_json()).unwrap(), b);
        let b = Baseline { stack_bound: Some(400), ..b };
        assert_eq!(Baseline::from_json(&b.to_json()).unwrap(), b);
        assert!(Baseline::from_json("[]").is_err());
        assert!(Baseline::from_json("{\"flash\": 1}").unwrap_err().contains("static_ram"));
    }

    #[test]
    fn growth_beyond_thresholds_fails() {
        let old = Baseline { static_ram: 200, flash: 8000, stack_bound: Some(300), measured_peak: 250, total_ram: 500 };
        let (_, f) = old.diff(&Baseline { total_ram: 564, flash: 9024, ..old.clone() });
        assert!(f.is_empty(), "{f:?}");
        let (text, f) = old.diff(&Baseline { total_ram: 565, flash: 9025, ..old.clone() });
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(text.contains("+65"));
        // Shrinking never fails.
        assert!(old.diff(&Baseline { total_ram: 10, flash: 10, ..old.clone() }).1.is_empty());
    }
}
