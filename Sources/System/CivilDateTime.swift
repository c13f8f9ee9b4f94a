/// A UTC instant broken down into a `CivilDate` and the time of day, from seconds since the Unix epoch
/// (which has no leap seconds, so every day has 86,400).
public struct CivilDateTime: Hashable, Sendable {
    /// The calendar day.
    public var date: CivilDate
    /// Hour, 0...23.
    public var hour: Int
    /// Minute, 0...59.
    public var minute: Int
    /// Second, 0...59.
    public var second: Int

    /// The UTC date and time of `epochSeconds` (before 1970 when negative).
    @inlinable
    public init(epochSeconds: Int64) {
        var days = epochSeconds / 86_400
        var secondsOfDay = epochSeconds % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        date = CivilDate(daysSinceEpoch: days)
        hour = Int(secondsOfDay / 3600)
        minute = Int(secondsOfDay / 60 % 60)
        second = Int(secondsOfDay % 60)
    }

    /// `date` at `hour`:`minute`:`second`, as given.
    public init(date: CivilDate, hour: Int, minute: Int, second: Int) {
        self.date = date
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Seconds since the Unix epoch.
    public var epochSeconds: Int64 {
        date.daysSinceEpoch * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The year of `date`.
    public var year: Int { date.year }
    /// The month of `date`, 1...12.
    public var month: Int { date.month }
    /// The day of the month of `date`, 1...31.
    public var day: Int { date.day }
    /// The day of the week, 0 = Sunday ... 6 = Saturday.
    public var weekday: Int { date.weekday }
}
