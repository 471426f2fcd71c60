//! The log's calendar: the local date and time of a simulated instant.
//!
//! A workload's time 0 is an instant of the real world: the SWF header's
//! `UnixStartTime` (seconds since the Unix epoch), in the site's time zone,
//! `TimeZoneString` (an IANA name such as `Europe/Stockholm` or
//! `US/Pacific`). Policies that depend on the time of day or the day of the
//! week (Greedy's week situations, time-of-day shares) read local time from
//! a [`Calendar`].
//!
//! - Zone: `TimeZoneString` when present (it knows daylight saving time);
//!   otherwise the deprecated `TimeZone`, a fixed offset in seconds east of
//!   UTC (in the archive's logs it is the zone's standard offset, without
//!   daylight saving); otherwise UTC. When both are present the string
//!   wins and `TimeZone` is ignored.
//! - Database: the IANA time-zone database bundled with `jiff`, not the
//!   machine's copy, so local times (and every result that depends on them)
//!   are the same on every machine.
//! - Scaled arrival times (`--load` with `scale`): the calendar follows
//!   simulated time from `UnixStartTime`, so a job submitted at simulated
//!   time t is at local time `UnixStartTime + t`, whatever the scaling did
//!   to t. (Scaling compresses the log's weeks; that is the scaling's
//!   effect, and it is what a policy sees.)
//! - Generated workloads have no header calendar: give one explicitly
//!   ([`Calendar::new`], [`Calendar::utc`]); the documented default for the
//!   generators is [`Calendar::utc`] with epoch 0.

use std::fmt;

use jiff::Timestamp;
use jiff::tz::{Offset, TimeZone};
use workload_format::Header;

use crate::Time;

/// Why a calendar could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CalendarError {
    /// The time-zone name is not in the IANA database.
    #[error("unknown time zone `{0}` (expected an IANA name such as Europe/Stockholm)")]
    UnknownZone(String),
    /// The fixed offset is not a valid UTC offset.
    #[error("time-zone offset {0} s is out of range (at most 25 hours either way)")]
    BadOffset(i64),
    /// The epoch is outside the range of dates the calendar handles.
    #[error("start time {0} s since the Unix epoch is out of range")]
    BadEpoch(i64),
}

/// The local date and time of an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct LocalTime {
    /// Year, e.g. 1996.
    pub year: i16,
    /// Month, 1 (January) to 12.
    pub month: u8,
    /// Day of the month, 1 to 31.
    pub day: u8,
    /// Day of the week, 1 (Monday) to 7 (Sunday), as ISO 8601.
    pub weekday: u8,
    /// Hour, 0 to 23.
    pub hour: u8,
    /// Minute, 0 to 59.
    pub minute: u8,
    /// Second, 0 to 59.
    pub second: u8,
}

impl LocalTime {
    /// Saturday or Sunday.
    pub fn is_weekend(&self) -> bool {
        self.weekday >= 6
    }
}

/// The log's calendar: simulated time 0 is `epoch` seconds after the Unix
/// epoch, in a time zone. Cheap to clone; `Send` and `Sync`.
///
/// ```
/// use schedsim_sim_core::Calendar;
/// // KTH's log: UnixStartTime 843480031, Europe/Stockholm.
/// let calendar = Calendar::new(843_480_031, "Europe/Stockholm")?;
/// let start = calendar.local(0);
/// // Mon Sep 23 14:00:31 CEST 1996, the header's StartTime.
/// assert_eq!((start.year, start.month, start.day), (1996, 9, 23));
/// assert_eq!((start.weekday, start.hour, start.minute), (1, 14, 0));
/// assert_eq!(calendar.format(0), "Mon Sep 23 14:00:31 CEST 1996");
/// # Ok::<(), schedsim_sim_core::CalendarError>(())
/// ```
#[derive(Clone)]
pub struct Calendar {
    epoch: i64,
    zone: TimeZone,
    name: String,
}

impl fmt::Debug for Calendar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Calendar")
            .field("epoch", &self.epoch)
            .field("zone", &self.name)
            .finish()
    }
}

impl PartialEq for Calendar {
    fn eq(&self, other: &Self) -> bool {
        self.epoch == other.epoch && self.name == other.name
    }
}

impl Eq for Calendar {}

/// Seconds in a day.
const DAY: i64 = 86_400;

impl Calendar {
    /// A calendar whose time 0 is `epoch` (seconds since the Unix epoch) in
    /// the IANA time zone `zone` (e.g. `Europe/Stockholm`, `US/Pacific`,
    /// `UTC`).
    ///
    /// # Errors
    /// An unknown zone, or an epoch outside the years -9999 to 9999.
    pub fn new(epoch: i64, zone: &str) -> Result<Self, CalendarError> {
        let tz = TimeZone::get(zone).map_err(|_| CalendarError::UnknownZone(zone.to_owned()))?;
        Self::with_zone(epoch, tz, zone.to_owned())
    }

    /// A calendar in UTC whose time 0 is `epoch` seconds since the Unix
    /// epoch (the documented default for generated workloads: epoch 0).
    pub fn utc(epoch: i64) -> Self {
        Self {
            epoch,
            zone: TimeZone::UTC,
            name: "UTC".to_owned(),
        }
    }

    /// A calendar with a fixed offset of `seconds` east of UTC (no daylight
    /// saving), as the SWF header's deprecated `TimeZone` gives it.
    ///
    /// # Errors
    /// An offset beyond 25 hours either way, or an epoch out of range.
    pub fn fixed(epoch: i64, seconds: i64) -> Result<Self, CalendarError> {
        let offset = i32::try_from(seconds)
            .ok()
            .and_then(|s| Offset::from_seconds(s).ok())
            .ok_or(CalendarError::BadOffset(seconds))?;
        Self::with_zone(epoch, TimeZone::fixed(offset), format!("UTC{offset}"))
    }

    fn with_zone(epoch: i64, zone: TimeZone, name: String) -> Result<Self, CalendarError> {
        Timestamp::from_second(epoch).map_err(|_| CalendarError::BadEpoch(epoch))?;
        Ok(Self { epoch, zone, name })
    }

    /// The calendar of an SWF header: `UnixStartTime` in `TimeZoneString`,
    /// else in the fixed offset `TimeZone`, else in UTC; `None` when the
    /// header has no `UnixStartTime`.
    ///
    /// # Errors
    /// An unknown `TimeZoneString`, or values out of range, also in a
    /// header without `UnixStartTime` (a zone that cannot be used is bad
    /// input whether or not a run needs it, as `validate` reports).
    pub fn from_header(header: &Header) -> Result<Option<Self>, CalendarError> {
        let epoch = header.unix_start_time();
        let at = epoch.unwrap_or(0);
        let calendar = match (header.time_zone_string(), header.time_zone()) {
            (Some(name), _) => Self::new(at, name.trim())?,
            (None, Some(offset)) => Self::fixed(at, offset)?,
            (None, None) => Self::utc(at),
        };
        Ok(epoch.map(|_| calendar))
    }

    /// Simulated time 0, in seconds since the Unix epoch.
    pub fn epoch(&self) -> i64 {
        self.epoch
    }

    /// The time zone's name (IANA, `UTC`, or `UTC+hh:mm` for a fixed
    /// offset).
    pub fn zone(&self) -> &str {
        &self.name
    }

    /// The Unix timestamp of simulated time `t`, clamped to the range the
    /// calendar handles (years -9999 to 9999).
    fn timestamp(&self, t: Time) -> Timestamp {
        let seconds = self.epoch.saturating_add(t);
        Timestamp::from_second(seconds).unwrap_or(if seconds < 0 {
            Timestamp::MIN
        } else {
            Timestamp::MAX
        })
    }

    /// The UTC offset in effect at simulated time `t`, seconds east of UTC.
    pub fn offset(&self, t: Time) -> i64 {
        i64::from(self.zone.to_offset(self.timestamp(t)).seconds())
    }

    /// The local date and time of simulated time `t`.
    ///
    /// One time-zone lookup (a binary search over the zone's transitions)
    /// and integer arithmetic: no allocation, cheap enough to call at every
    /// scheduling event.
    pub fn local(&self, t: Time) -> LocalTime {
        let timestamp = self.timestamp(t);
        let offset = i64::from(self.zone.to_offset(timestamp).seconds());
        let local = timestamp.as_second() + offset;
        let days = local.div_euclid(DAY);
        let second_of_day = local.rem_euclid(DAY);
        let (year, month, day) = civil_from_days(days);
        LocalTime {
            year: year as i16,
            month,
            day,
            // 1970-01-01 was a Thursday (ISO day 4).
            weekday: ((days + 3).rem_euclid(7) + 1) as u8,
            hour: (second_of_day / 3600) as u8,
            minute: (second_of_day % 3600 / 60) as u8,
            second: (second_of_day % 60) as u8,
        }
    }

    /// Simulated time `t` as the SWF header writes `StartTime` and
    /// `EndTime`: `Mon Sep 23 14:00:31 CEST 1996` (day of week, month, day,
    /// time, the zone's abbreviation then in effect, year).
    pub fn format(&self, t: Time) -> String {
        const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let local = self.local(t);
        let info = self.zone.to_offset_info(self.timestamp(t));
        format!(
            "{} {} {:02} {:02}:{:02}:{:02} {} {}",
            DAYS[usize::from(local.weekday - 1)],
            MONTHS[usize::from(local.month - 1)],
            local.day,
            local.hour,
            local.minute,
            local.second,
            info.abbreviation(),
            local.year
        )
    }
}

/// Year, month and day of a count of days since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, exact for the proleptic Gregorian calendar).
fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u8;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    } as u8;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_match_jiff_across_centuries() {
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            let date = Timestamp::from_second(days * DAY)
                .unwrap()
                .to_zoned(TimeZone::UTC);
            assert_eq!(
                (y, m, d),
                (i64::from(date.year()), date.month() as u8, date.day() as u8)
            );
            assert_eq!(
                Calendar::utc(days * DAY).local(0).weekday,
                date.weekday().to_monday_one_offset() as u8
            );
        }
    }

    #[test]
    fn daylight_saving_time_and_fixed_offsets() {
        // 1996-10-27 01:00 UTC: Stockholm leaves summer time (03:00 CEST ->
        // 02:00 CET). One second before, 02:59:59 CEST; at it, 02:00:00 CET.
        let calendar = Calendar::new(846_378_000, "Europe/Stockholm").unwrap();
        assert_eq!(calendar.format(-1), "Sun Oct 27 02:59:59 CEST 1996");
        assert_eq!(calendar.format(0), "Sun Oct 27 02:00:00 CET 1996");
        assert_eq!((calendar.offset(-1), calendar.offset(0)), (7200, 3600));
        // The deprecated TimeZone: a fixed standard offset, no summer time.
        let fixed = Calendar::fixed(846_378_000 - 1, 3600).unwrap();
        assert_eq!(fixed.local(0).hour, 1);
        assert!(Calendar::fixed(0, 100_000).is_err());
        assert_eq!(
            Calendar::new(0, "Mars/Olympus").unwrap_err().to_string(),
            "unknown time zone `Mars/Olympus` (expected an IANA name such as Europe/Stockholm)"
        );
        // Weekends: 1996-09-28 was a Saturday.
        let kth = Calendar::new(843_480_031, "Europe/Stockholm").unwrap();
        assert!(kth.local(5 * DAY).is_weekend());
        assert!(!kth.local(4 * DAY).is_weekend());
    }

    #[test]
    fn header_precedence() {
        let header = |lines: &[&str]| {
            let mut header = Header::new();
            for line in lines {
                header.push_line(*line).unwrap();
            }
            header
        };
        assert_eq!(
            Calendar::from_header(&header(&["; MaxProcs: 4"])).unwrap(),
            None
        );
        let both = header(&[
            "; UnixStartTime: 781275672",
            "; TimeZone: -25200",
            "; TimeZoneString: US/Mountain",
        ]);
        // The string wins: 1994-10-04 07:01:12 MDT (summer time, -6 h).
        let calendar = Calendar::from_header(&both).unwrap().unwrap();
        assert_eq!(calendar.zone(), "US/Mountain");
        assert_eq!(calendar.format(0), "Tue Oct 04 07:01:12 MDT 1994");
        // Without the string, the fixed offset -7 h: 06:01:12.
        let offset_only = header(&["; UnixStartTime: 781275672", "; TimeZone: -25200"]);
        let calendar = Calendar::from_header(&offset_only).unwrap().unwrap();
        assert_eq!(calendar.local(0).hour, 6);
        let utc = header(&["; UnixStartTime: 781275672"]);
        assert_eq!(
            Calendar::from_header(&utc).unwrap().unwrap().local(0).hour,
            13
        );
        // A zone is checked without a start time too, where there is no
        // calendar to return.
        let zone_only = header(&["; TimeZoneString: Mars/Olympus"]);
        assert_eq!(
            Calendar::from_header(&zone_only).unwrap_err(),
            CalendarError::UnknownZone("Mars/Olympus".to_owned())
        );
        let valid_zone_only = header(&["; TimeZoneString: Europe/Stockholm"]);
        assert_eq!(Calendar::from_header(&valid_zone_only).unwrap(), None);
    }
}
