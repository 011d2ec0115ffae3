//! The datasheet's timing characteristics and execution times.

/// Interface timing and execution times, in nanoseconds.
///
/// The two constants are the datasheet's two supply-voltage columns. The
/// default is the 2.7..4.5 V column: it holds at every supply voltage, so
/// firmware that satisfies it works on any module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Minimum E high pulse width (PW_EH).
    pub pw_eh_ns: u64,
    /// Minimum time between rising edges of E (tcycE).
    pub t_cyc_e_ns: u64,
    /// RS and R/W setup before E rises (tAS).
    pub t_as_ns: u64,
    /// RS and R/W hold after E falls (tAH).
    pub t_ah_ns: u64,
    /// Data setup before E falls, writes (tDSW).
    pub t_dsw_ns: u64,
    /// Data hold after E falls, writes (tH).
    pub t_h_ns: u64,
    /// Data output delay after E rises, reads (tDDR).
    pub t_ddr_ns: u64,
    /// Execution time of most instructions.
    pub instruction_ns: u64,
    /// Execution time of clear display and return home.
    pub clear_home_ns: u64,
    /// Busy time of a data write or read: 37 µs plus tADD (4 µs), the
    /// address counter update that follows the busy flag.
    pub data_ns: u64,
    /// Busy after power-on: the 10 ms internal reset plus the supply rise the
    /// datasheet's initialisation by instruction waits for.
    pub power_on_ns: u64,
}

impl Timing {
    /// VCC = 4.5..5.5 V.
    pub const VCC_5V: Timing = Timing {
        pw_eh_ns: 230,
        t_cyc_e_ns: 500,
        t_as_ns: 40,
        t_ah_ns: 10,
        t_dsw_ns: 80,
        t_h_ns: 10,
        t_ddr_ns: 160,
        instruction_ns: 37_000,
        clear_home_ns: 1_520_000,
        data_ns: 41_000,
        power_on_ns: 15_000_000,
    };
    /// VCC = 2.7..4.5 V.
    pub const VCC_3V: Timing = Timing {
        pw_eh_ns: 450,
        t_cyc_e_ns: 1000,
        t_as_ns: 60,
        t_ah_ns: 20,
        t_dsw_ns: 195,
        t_h_ns: 10,
        t_ddr_ns: 360,
        power_on_ns: 40_000_000,
        ..Timing::VCC_5V
    };
}

impl Default for Timing {
    fn default() -> Timing {
        Timing::VCC_3V
    }
}
