/// How a browser is told to show a record's object (`Content-Disposition`): in the page, or saved.
public enum ReadDisposition: String, Sendable, CaseIterable {
    /// Shown in place: only the raster image types of `ReadPolicy.inlineContentTypes`.
    case inline
    /// Downloaded under its file name.
    case attachment
}
