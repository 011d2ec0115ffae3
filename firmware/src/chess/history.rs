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
    /// Free entries: `HISTORY_LEN` less the number of valid ones (the
    /// assembly push takes 1 and skips the store on a borrow, no compare).
    room: u8,
}

/// Offsets of the ring, its head and its room, for the AVR build's
/// assembly push in `make_move_into` and pop in `unmake_move` (which take
/// the room to follow the head).
#[cfg(target_arch = "avr")]
pub(super) const RING_OFFSET: usize = core::mem::offset_of!(HashHistory, ring);
#[cfg(target_arch = "avr")]
pub(super) const HEAD_OFFSET: usize = core::mem::offset_of!(HashHistory, head);
#[cfg(target_arch = "avr")]
const _: () = assert!(core::mem::offset_of!(HashHistory, room) == HEAD_OFFSET + 1);

impl HashHistory {
    pub const fn new() -> Self {
        HashHistory {
            ring: [0; HISTORY_LEN],
            head: 0,
            room: HISTORY_LEN as u8,
        }
    }

    /// Forgets everything (new game, position set up from FEN).
    pub fn clear(&mut self) {
        self.head = 0;
        self.room = HISTORY_LEN as u8;
    }

    /// Number of remembered positions.
    pub fn len(&self) -> usize {
        HISTORY_LEN - self.room as usize
    }

    pub fn is_empty(&self) -> bool {
        self.room as usize == HISTORY_LEN
    }

    /// Remembers `hash`; when full the oldest entry is overwritten.
    #[inline]
    pub fn push(&mut self, hash: u32) {
        // (`head` is always in range: a test, not a bounds-check panic.)
        if let Some(slot) = self.ring.get_mut((self.head >> 1) as usize) {
            *slot = hash;
        }
        self.head = if self.head as usize + 2 == 2 * HISTORY_LEN {
            0
        } else {
            self.head + 2
        };
        if self.room > 0 {
            self.room -= 1;
        }
    }

    /// Drops the newest entry. If the ring had overflowed, the entry the push
    /// overwrote is lost for good; that one was 100 plies old, beyond the
    /// fifty-move horizon.
    #[inline]
    pub fn pop(&mut self) {
        if (self.room as usize) < HISTORY_LEN {
            self.head = if self.head == 0 {
                2 * HISTORY_LEN as u8 - 2
            } else {
                self.head - 2
            };
            self.room += 1;
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
        let len = HISTORY_LEN as u8 - self.room;
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
