//! Ring of the hashes of earlier positions, for repetition detection.
//!
//! Only positions since the last capture or pawn move can repeat, and after
//! 100 such plies the fifty-move rule ends the game anyway, so 100 entries
//! (400 bytes of SRAM) cover every repetition that matters.

/// Capacity of the ring in plies.
pub const HISTORY_LEN: usize = 100;

/// Hashes of the positions before the current one, newest last.
#[derive(Clone)]
pub struct HashHistory {
    ring: [u32; HISTORY_LEN],
    /// Twice the slot the next push writes (0, 2, .., 198): the AVR's
    /// assembly push adds it to the ring's address twice, no `mul`.
    head: u8,
    /// `head` plus twice the room (`HISTORY_LEN` less the number of
    /// valid entries), mod 256 (twice the room, 0..=200, is one byte
    /// exactly). It changes only when the head wraps and on a push into a
    /// full ring (`limit == head`): the AVR's push and pop compare it and
    /// store only the head. (The room itself, taken down or up a push or
    /// pop: `bench engine` 0.1% more cycles.)
    limit: u8,
}

/// Offsets of the ring, its head and its room, for the AVR build's
/// assembly push in `make_move_into` and pop in `unmake_move` (which take
/// the room to follow the head).
#[cfg(target_arch = "avr")]
pub(super) const RING_OFFSET: usize = core::mem::offset_of!(HashHistory, ring);
#[cfg(target_arch = "avr")]
pub(super) const HEAD_OFFSET: usize = core::mem::offset_of!(HashHistory, head);
#[cfg(target_arch = "avr")]
const _: () = assert!(core::mem::offset_of!(HashHistory, limit) == HEAD_OFFSET + 1);

impl HashHistory {
    pub const fn new() -> Self {
        HashHistory {
            ring: [0; HISTORY_LEN],
            head: 0,
            limit: 2 * HISTORY_LEN as u8,
        }
    }

    /// Forgets everything (new game, position set up from FEN).
    pub fn clear(&mut self) {
        self.head = 0;
        self.limit = 2 * HISTORY_LEN as u8;
    }

    /// Twice the free entries.
    #[inline]
    fn room2(&self) -> u8 {
        self.limit.wrapping_sub(self.head)
    }

    /// Number of remembered positions.
    pub fn len(&self) -> usize {
        HISTORY_LEN - (self.room2() >> 1) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.room2() as usize == 2 * HISTORY_LEN
    }

    /// Remembers `hash`; when full the oldest entry is overwritten.
    #[inline]
    pub fn push(&mut self, hash: u32) {
        // (`head` is always in range: a test, not a bounds-check panic.)
        let head = self.head;
        if let Some(slot) = self.ring.get_mut((head >> 1) as usize) {
            *slot = hash;
        }
        let next = if head as usize + 2 == 2 * HISTORY_LEN { 0 } else { head + 2 };
        if self.limit == head {
            // Full: still no room.
            self.limit = next;
        } else if next == 0 {
            // One less room, the head 198 back.
            self.limit = self.limit.wrapping_sub(2 * HISTORY_LEN as u8);
        }
        self.head = next;
    }

    /// Drops the newest entry. If the ring had overflowed, the entry the push
    /// overwrote is lost for good; that one was 100 plies old, beyond the
    /// fifty-move horizon.
    #[inline]
    pub fn pop(&mut self) {
        if (self.room2() as usize) < 2 * HISTORY_LEN {
            if self.head == 0 {
                self.head = 2 * HISTORY_LEN as u8 - 2;
                // (One more room, the head 198 on.)
                self.limit = self.limit.wrapping_add(2 * HISTORY_LEN as u8);
            } else {
                self.head -= 2;
            }
        }
    }

    /// Hash `back` plies before the current position (1 = previous one).
    #[inline]
    pub fn get(&self, back: usize) -> Option<u32> {
        if back == 0 || back > self.len() {
            return None;
        }
        let mut i = (self.head >> 1) as usize + HISTORY_LEN - back;
        if i >= HISTORY_LEN {
            i -= HISTORY_LEN;
        }
        Some(self.ring[i])
    }

    /// How often `hash` occurs among the last `window` plies, looking only at
    /// positions with the same side to move (every second ply, from 4 back).
    ///
    /// Counts its probes and walks the ring's index down in bytes (the
    /// loop over `get` kept 16-bit plies and indices and saved 13
    /// registers on the AVR).
    pub fn count(&self, hash: u32, window: usize) -> u8 {
        let len = HISTORY_LEN as u8 - (self.room2() >> 1);
        let window = if window < len as usize { window as u8 } else { len };
        if window < 4 {
            return 0;
        }
        let mut probes = (window - 4) / 2 + 1;
        // Plies 4, 6, ... back: slot head - 4, head - 6, ... around the ring.
        let mut i = (self.head >> 1).wrapping_sub(4);
        if i >= HISTORY_LEN as u8 {
            i = i.wrapping_add(HISTORY_LEN as u8);
        }
        let mut n = 0;
        loop {
            if self.ring.get(i as usize) == Some(&hash) {
                n += 1;
            }
            probes -= 1;
            if probes == 0 {
                return n;
            }
            i = i.wrapping_sub(2);
            if i >= HISTORY_LEN as u8 {
                i = i.wrapping_add(HISTORY_LEN as u8);
            }
        }
    }
}

impl Default for HashHistory {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_push_pop_and_overflow() {
        let mut h = HashHistory::new();
        for i in 0..150u32 {
            h.push(i);
        }
        assert_eq!(h.len(), HISTORY_LEN);
        assert_eq!(h.get(1), Some(149));
        assert_eq!(h.get(100), Some(50));
        assert_eq!(h.get(101), None);
        h.pop();
        assert_eq!(h.get(1), Some(148));
        assert_eq!(h.len(), HISTORY_LEN - 1);
        assert_eq!(h.count(145, 10), 1);
        assert_eq!(
            h.count(144, 10),
            0,
            "odd distances are the other side to move"
        );
    }

    /// The head-and-limit ring against a plain list model (push drops the
    /// oldest of 100, pop the newest): through wraps, full pushes and
    /// pops from full and from empty.
    #[test]
    fn ring_is_a_list_of_the_last_hundred() {
        let mut h = HashHistory::new();
        let mut model: std::vec::Vec<u32> = std::vec::Vec::new();
        let mut seed = 12345u32;
        for step in 0..5000u32 {
            seed = seed.wrapping_mul(1103515245).wrapping_add(12345);
            // Long runs of pushes (to fill) and of pops (to empty).
            let push = if (step / 300) % 2 == 0 { seed >> 16 & 7 != 0 } else { seed >> 16 & 7 == 0 };
            if push {
                h.push(step);
                model.push(step);
                if model.len() > HISTORY_LEN {
                    model.remove(0);
                }
            } else {
                h.pop();
                model.pop();
            }
            assert_eq!(h.len(), model.len());
            assert_eq!(h.is_empty(), model.is_empty());
            for back in 0..=HISTORY_LEN + 1 {
                let want = if back == 0 || back > model.len() { None } else { Some(model[model.len() - back]) };
                assert_eq!(h.get(back), want, "step {step} back {back}");
            }
        }
    }

    #[test]
    fn count_is_the_walk_over_get() {
        let mut h = HashHistory::new();
        for i in 0..260u32 {
            if i % 3 == 0 {
                h.pop();
            }
            h.push(i % 7);
            for window in 0..110 {
                for hash in 0..7 {
                    let mut n = 0;
                    let mut back = 4;
                    while back <= window {
                        if h.get(back) == Some(hash) {
                            n += 1;
                        }
                        back += 2;
                    }
                    assert_eq!(h.count(hash, window), n);
                }
            }
        }
    }
}
